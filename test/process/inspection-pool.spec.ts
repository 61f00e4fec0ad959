// The inspection pool's admission: past twice its workers, packages are refused at once.
import { InspectionPool, InspectionPoolFullError } from '../../src/package/inspection-pool';
import { skillZip } from '../support/zip-builder';
import { DEFAULT_LIMITS as LIMITS } from '../support/package-limits';

describe('InspectionPool', () => {
  it('admits maxInFlight packages, refuses the next at once, and admits again once one is done', async () => {
    const pool = new InspectionPool({ workers: 1, maxInFlight: 2, deadlineMs: 10_000 });
    try {
      const zip = skillZip('pooled');
      const first = pool.inspect(zip, LIMITS);
      const second = pool.inspect(zip, LIMITS);
      await expect(pool.inspect(zip, LIMITS)).rejects.toBeInstanceOf(InspectionPoolFullError);
      const results = await Promise.all([first, second]);
      expect(results.map((r) => [r.valid, r.name, Buffer.isBuffer(r.canonical)])).toEqual([
        [true, 'pooled', true],
        [true, 'pooled', true],
      ]);
      expect((await pool.inspect(zip, LIMITS)).valid).toBe(true);
    } finally {
      await pool.close();
    }
  });
});
