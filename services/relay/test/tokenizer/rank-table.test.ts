import { RankTable } from '../../src/tokenizer/rank-table.js';

/** The table's own cases; lean-encoder.test.ts holds it equal to js-tiktoken's on the real rank files. */
describe('RankTable', () => {
  it('reads each line from its first rank on, tokens in base64, and looks them up by their bytes joined by commas', () => {
    // "A", "B", "AB" from rank 0; "hi" from rank 10 (ranks need not be contiguous across lines).
    const table = new RankTable('! 0 QQ== Qg== QUI=\n! 10 aGk=');
    expect(table.size).toBe(4);
    expect(table.get('65')).toBe(0);
    expect(table.get('66')).toBe(1);
    expect(table.get('65,66')).toBe(2);
    expect(table.get('104,105')).toBe(10);
    expect(table.get('66,65')).toBeUndefined();
    expect(table.get('65,66,65')).toBeUndefined();
    expect(table.get('')).toBeUndefined();
  });

  it('keeps the later rank of a token listed twice, as the Map it replaces did', () => {
    const table = new RankTable('! 0 QQ== Qg== QQ==');
    expect(table.size).toBe(2);
    expect(table.get('65')).toBe(2);
    expect(table.get('66')).toBe(1);
  });

  it('finds a token longer than its lookup buffer, and short ones after it', () => {
    const long = Buffer.alloc(200, 'x');
    const table = new RankTable(`! 7 ${long.toString('base64')} eA==`);
    expect(table.get([...long].join(','))).toBe(7);
    expect(table.get('120')).toBe(8);
    expect(table.get([...long.subarray(1)].join(','))).toBeUndefined();
  });
});
