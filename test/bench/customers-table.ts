/** The 12-field table the data-plane benchmarks fill (`rows.bench.ts`, `export.bench.ts`), and its rows. */

export const STAGES = ['Lead', 'Qualified', 'Proposal', 'Won', 'Lost'];
export const TAGS = ['hot', 'cold', 'vip', 'partner'];
const CITIES = ['Paris', 'Berlin', 'Lisbon', 'Oslo', 'Rome', 'Madrid', 'Vienna', 'Prague'];

/** `POST /tables` body: string×4, number×3, boolean, date, dateOnly, select, multi select. */
export const CUSTOMERS_TABLE = {
  name: 'customers',
  columns: [
    { name: 'Name', type: 'string' },
    { name: 'Email', type: 'string', metadata: { format: 'email' } },
    { name: 'City', type: 'string' },
    { name: 'Score', type: 'number', metadata: { format: 'integer' } },
    { name: 'Amount', type: 'number', metadata: { format: 'currency', currency: 'EUR', decimals: 2 } },
    { name: 'Active', type: 'boolean' },
    { name: 'Signed', type: 'date', metadata: { timezone: 'Europe/Paris' } },
    { name: 'Due', type: 'dateOnly' },
    { name: 'Stage', type: 'select', metadata: { mode: 'singleSelect' } },
    { name: 'Tags', type: 'select', metadata: { mode: 'multiSelect' } },
    { name: 'Notes', type: 'string', metadata: { format: 'text', extendedField: true } },
    { name: 'Rating', type: 'number', metadata: { format: 'integer' } },
  ],
};

/** Row number `i` of the table. */
export function customerRow(i: number) {
  return {
    Name: `Customer ${i}`,
    Email: `customer${i}@example.test`,
    City: CITIES[i % CITIES.length],
    Score: (i * 7919) % 100,
    Amount: ((i * 104729) % 1_000_000) / 100,
    Active: i % 3 !== 0,
    Signed: new Date(Date.UTC(2024, 0, 1) + (i % 365) * 86_400_000).toISOString(),
    Due: new Date(Date.UTC(2025, 0, 1) + (i % 300) * 86_400_000).toISOString().slice(0, 10),
    Stage: STAGES[i % STAGES.length],
    Tags: [TAGS[i % 4], TAGS[(i + 1) % 4]],
    Notes: i % 10 === 0 ? `Follow up with customer ${i} about the renewal` : null,
    Rating: i % 5,
  };
}
