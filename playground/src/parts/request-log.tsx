import { useEffect, useRef } from 'react';
import { formatMs } from './format.js';
import type { LogRow } from './request-log-model.js';

const clock = (at: number): string => new Date(at).toLocaleTimeString([], { hour12: false });

/** A job's live request log, newest at the bottom, kept scrolled down. */
export function RequestLog({ rows }: { rows: LogRow[] }) {
  const list = useRef<HTMLOListElement>(null);
  useEffect(() => {
    list.current?.scrollTo({ top: list.current.scrollHeight });
  }, [rows]);
  return (
    <ol className="log" ref={list} data-testid="log">
      {rows.length === 0 && <li className="log-empty">no requests yet</li>}
      {rows.map((row) => (
        <li
          key={`${row.n}-${row.at}-${row.kind}`}
          className={`log-row log-${row.kind}`}
          data-testid="log-row"
          data-kind={row.kind}
          data-n={row.n}
          data-at={row.at}
          data-result={row.result}
          data-wait={row.wait}
          data-why={row.why}
        >
          <span className="log-time">{clock(row.at)}</span>
          {row.n > 0 ? (
            <>
              <span className="log-n">#{row.n}</span>
              <span className="log-result" title={row.conditional ? 'sent If-None-Match with the last ETag' : undefined}>
                {row.result ?? '…'}
                {row.conditional ? <abbr>*</abbr> : null}
              </span>
              <span className="log-ms">{row.ms === undefined ? '' : formatMs(row.ms)}</span>
              <span className="log-why" title={row.why}>
                {row.wait === undefined ? '' : `→ ${formatMs(row.wait)}`}
                {row.note ?? row.why ? <em> {row.note ?? row.why}</em> : null}
              </span>
            </>
          ) : (
            <span className="log-why log-wide">
              {row.why}
            </span>
          )}
        </li>
      ))}
    </ol>
  );
}
