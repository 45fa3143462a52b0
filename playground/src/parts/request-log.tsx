import { useEffect, useRef, useState } from 'react';
import { formatMs } from './format.js';
import type { LogRow } from './request-log-model.js';

const clock = (at: number): string => new Date(at).toLocaleTimeString([], { hour12: false });

const keyOf = (row: LogRow): string => `${row.n}-${row.at}-${row.kind}`;

/** The whole of a row, for its tooltip: what its cells may have to cut. */
const describe = (row: LogRow): string =>
  [
    row.n > 0 ? `#${row.n}` : '',
    row.result ?? (row.n > 0 ? 'waiting for the answer' : ''),
    row.conditional ? '(sent If-None-Match with the last ETag)' : '',
    row.ms === undefined ? '' : `answered in ${formatMs(row.ms)}`,
    row.wait === undefined || row.n === 0 ? '' : `then waited ${formatMs(row.wait)}`,
    row.why ?? '',
    row.count ? `(${row.count} times in a row)` : '',
  ]
    .filter(Boolean)
    .join(' ');

/**
 * A job's live request log, newest at the bottom, kept scrolled down. A row whose cells are cut
 * off says all of it in its tooltip, and opens (every cell wrapped in full) when clicked, or on
 * Enter or Space.
 */
export function RequestLog({ rows }: { rows: LogRow[] }) {
  const list = useRef<HTMLOListElement>(null);
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  useEffect(() => {
    list.current?.scrollTo({ top: list.current.scrollHeight });
  }, [rows]);
  const toggle = (key: string): void =>
    setOpen((current) => {
      const next = new Set(current);
      if (!next.delete(key)) next.add(key);
      return next;
    });
  return (
    <ol className="log" ref={list} data-testid="log">
      {rows.length === 0 && <li className="log-empty">no requests yet</li>}
      {rows.map((row) => {
        const key = keyOf(row);
        const isOpen = open.has(key);
        return (
          <li
            key={key}
            className={`log-row log-${row.kind}${isOpen ? ' open' : ''}`}
            data-testid="log-row"
            data-kind={row.kind}
            data-n={row.n}
            data-at={row.at}
            data-result={row.result}
            data-wait={row.wait}
            data-ms={row.ms}
            data-why={row.why}
            data-count={row.count}
            title={describe(row)}
            tabIndex={0}
            aria-expanded={isOpen}
            onClick={() => toggle(key)}
            onKeyDown={(event) => {
              if (event.key !== 'Enter' && event.key !== ' ') return;
              event.preventDefault();
              toggle(key);
            }}
          >
            <span className="log-time">{clock(row.at)}</span>
            {row.n > 0 ? (
              <>
                <span className="log-n">#{row.n}</span>
                <span className="log-result">
                  {row.result ?? '…'}
                  {row.conditional ? <abbr>*</abbr> : null}
                </span>
                <span className="log-ms">{row.ms === undefined ? '' : formatMs(row.ms)}</span>
                <span className="log-why">
                  {row.wait === undefined ? '' : `→ ${formatMs(row.wait)}`}
                  {(row.note ?? row.why) ? <em> {isOpen ? row.why : (row.note ?? row.why)}</em> : null}
                </span>
              </>
            ) : (
              <span className="log-why log-wide">
                {row.why}
                {row.count ? <span className="log-count">×{row.count}</span> : null}
              </span>
            )}
          </li>
        );
      })}
    </ol>
  );
}
