import { describe, expect, it } from 'vitest';
import * as cooperate from '../../src/cooperate/index.js';
import * as root from '../../src/index.js';
import * as kit from '../../src/kit/index.js';

// The root holds what an application calls; the building blocks of features
// and adapters are pollite/kit's, each in one place (issue 34, item 4).

describe('what each entry exports at run time', () => {
  it('pollite: the calls, the budget, the backoffs, the errors and their guards', () => {
    expect(Object.keys(root).sort()).toEqual([
      'HttpError',
      'ParseError',
      'PollGaveUpError',
      'PolliteError',
      'constant',
      'createRetryBudget',
      'decorrelatedJitter',
      'equalJitter',
      'exponential',
      'fetchWithRetry',
      'fullJitter',
      'isHttpError',
      'isParseError',
      'isPollGaveUpError',
      'isRetryableError',
      'isTimeoutError',
      'poll',
      'retry',
    ]);
  });

  it('pollite/kit: the shared loop, the share identity, time, the policy and HTTP', () => {
    expect(Object.keys(kit).sort()).toEqual([
      'MAX_BODY_BYTES',
      'MAX_HINT_BYTES',
      'MAX_HINT_MS',
      'PACED_FROM',
      'RETRY_AFTER_SPREAD',
      'UNCOMPARED_HEADERS',
      'bodyWait',
      'createSharedLoops',
      'discardBody',
      'errorOutcome',
      'fitDeadline',
      'freshFor',
      'isRetryableStatus',
      'nextSlowdown',
      'parseGrpcPushback',
      'parseJson',
      'parsePollInterval',
      'parseRateLimit',
      'parseRetryAfter',
      'parseRetryAfterMs',
      'readBodyWait',
      'readText',
      'realClock',
      'redactUrl',
      'retryDecision',
      'serverSays',
      'serverWait',
      'sha256Hex',
      'shareIdentity',
      'shareKey',
      'sleep',
      'slowsPace',
      'spread',
      'startTimer',
      'urlKey',
      'whenVisible',
    ]);
  });

  it('no name is exported by both, and pollite/cooperate keeps only its features', () => {
    expect(Object.keys(root).filter((name) => name in kit)).toEqual([]);
    expect(Object.keys(cooperate).sort()).toEqual(['clearCooldowns', 'paceByCacheControl', 'paceByData', 'pauseWhenBlurred', 'share', 'shareTabs']);
  });
});
