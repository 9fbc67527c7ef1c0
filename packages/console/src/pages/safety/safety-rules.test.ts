import { safetyLimits } from '@tessera/contract/constants';
import { describe, expect, it } from 'vitest';
import {
  changeCycleProblem,
  lockMinutesProblem,
  maxFailuresProblem,
  minLengthProblem,
} from './safety-rules.ts';

describe('safety form rules (spec §5, the limits of the contract)', () => {
  it('takes a minimum password length from 6 to 30 only', () => {
    for (const refused of [5, 31, 0, -1, 7.5, undefined, null, '8']) {
      expect(minLengthProblem(refused), String(refused)).toEqual({
        key: 'safety.general.minLengthRange',
        values: { min: 6, max: 30 },
      });
    }
    for (const accepted of [6, 8, 30]) expect(minLengthProblem(accepted), String(accepted)).toBeUndefined();
  });

  it('takes a forced change cycle of 0 (unlimited) or at least 30 days', () => {
    for (const refused of [10, 1, 29, -30, 30.5, safetyLimits.changeCycleDays.max + 1, undefined]) {
      expect(changeCycleProblem(refused)?.key, String(refused)).toBe('safety.general.changeCycleRange');
    }
    for (const accepted of [0, 30, 90, safetyLimits.changeCycleDays.max]) {
      expect(changeCycleProblem(accepted), String(accepted)).toBeUndefined();
    }
  });

  it('takes 3 to 20 failures and 1 to 1440 minutes for a lock-out', () => {
    expect(maxFailuresProblem(2)?.key).toBe('safety.lockout.maxFailuresRange');
    expect(maxFailuresProblem(21)?.key).toBe('safety.lockout.maxFailuresRange');
    expect(maxFailuresProblem(3)).toBeUndefined();
    expect(maxFailuresProblem(20)).toBeUndefined();
    expect(lockMinutesProblem(0)?.key).toBe('safety.lockout.lockMinutesRange');
    expect(lockMinutesProblem(1441)?.key).toBe('safety.lockout.lockMinutesRange');
    expect(lockMinutesProblem(1)).toBeUndefined();
    expect(lockMinutesProblem(1440)).toBeUndefined();
  });
});
