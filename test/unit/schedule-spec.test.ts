import { expect } from 'chai';
import { compactList, expandField, scheduleSpecOf, windowedCrons, type ScheduledTriggerData } from '../../lib/schedules/schedule-spec.js';

const node = (cronExpression: string, startTime: string | null = null, endTime: string | null = null, extra: Partial<ScheduledTriggerData> = {}) =>
  ({ cronExpression, timezone: 'Europe/Paris', startTime, endTime, ...extra }) satisfies ScheduledTriggerData;

describe('scheduleSpecOf: SCHEDULED_TRIGGER node data → Temporal schedule spec', () => {
  it('passes a cron without a daily window through as written, in the node time zone', () => {
    expect(scheduleSpecOf(node('0 9 * * MON-FRI'))).to.deep.equal({ cronExpressions: ['0 9 * * MON-FRI'], timezone: 'Europe/Paris' });
    expect(scheduleSpecOf(node('  */5   *  * * *  ')).cronExpressions).to.deep.equal(['*/5 * * * *']);
  });

  it('every 15 minutes during office hours: 09:00–17:00 keeps 09:00 … 16:45', () => {
    expect(scheduleSpecOf(node('*/15 * * * *', '09:00', '17:00')).cronExpressions).to.deep.equal(['0,15,30,45 9-16 * * *']);
  });

  it('splits partial first and last hours into their own crons, keeping the day fields', () => {
    expect(windowedCrons('*/15 * * * 1-5', '09:10', '17:20')).to.deep.equal(['15,30,45 9 * * 1-5', '0,15,30,45 10-16 * * 1-5', '0,15 17 * * 1-5']);
    expect(windowedCrons('5-20/5 9 * * *', '09:10', '10:00')).to.deep.equal(['10,15,20 9 * * *']);
  });

  it('hourly overnight: a window ending before it starts wraps past midnight', () => {
    expect(scheduleSpecOf(node('0 * * * *', '22:00', '06:00')).cronExpressions).to.deep.equal(['0 0-5,22,23 * * *']);
    expect(windowedCrons('0,30 * * * *', '22:30', '06:15')).to.deep.equal(['0,30 0-5,23 * * *', '0 6 * * *', '30 22 * * *']);
  });

  it('the start of the window is included, its end excluded', () => {
    expect(windowedCrons('30 8 * * *', '08:30', '08:31')).to.deep.equal(['30 8 * * *']);
    expect(windowedCrons('0 17 * * *', '09:00', '17:00')).to.deep.equal([]);
  });

  it('a window with only a start runs to midnight, one with only an end from midnight, equal times all day', () => {
    expect(scheduleSpecOf(node('0 */6 * * *', '12:00', null)).cronExpressions).to.deep.equal(['0 12,18 * * *']);
    expect(scheduleSpecOf(node('0 */6 * * *', null, '12:00')).cronExpressions).to.deep.equal(['0 0,6 * * *']);
    expect(scheduleSpecOf(node('0 */6 * * *', '08:00', '08:00')).cronExpressions).to.deep.equal(['0 0,6,12,18 * * *']);
  });

  it('expands macros to five fields, with or without a window', () => {
    expect(scheduleSpecOf(node('@daily')).cronExpressions).to.deep.equal(['0 0 * * *']);
    expect(scheduleSpecOf(node('@annually')).cronExpressions).to.deep.equal(['0 0 1 1 *']);
    expect(scheduleSpecOf(node('@hourly', '09:00', '12:00')).cronExpressions).to.deep.equal(['0 9-11 * * *']);
    expect(scheduleSpecOf(node('@weekly', '00:00', '01:00')).cronExpressions).to.deep.equal(['0 0 * * 0']);
  });

  it('a window no fire time falls in gives no cron at all (the schedule never fires)', () => {
    expect(scheduleSpecOf(node('@daily', '09:00', '17:00')).cronExpressions).to.deep.equal([]);
  });

  it('writes the "?" day wildcard as "*", since Temporal does not read it', () => {
    expect(scheduleSpecOf(node('0 9 ? * MON')).cronExpressions).to.deep.equal(['0 9 * * MON']);
    expect(scheduleSpecOf(node('0 * ? * *', '10:00', '12:00')).cronExpressions).to.deep.equal(['0 10,11 * * *']);
  });

  it('turns calendar dates into the start and the last millisecond of those days in the node time zone', () => {
    const spec = scheduleSpecOf(node('0 9 * * *', null, null, { startDate: '2025-03-01', endDate: '2025-03-31' }));
    expect(spec.startAt!.toISOString()).to.equal('2025-02-28T23:00:00.000Z'); // CET, UTC+1
    expect(spec.endAt!.toISOString()).to.equal('2025-03-31T21:59:59.999Z'); // CEST since March 30, UTC+2
  });

  it('takes a date-time with an offset as that instant, one without as wall time in the node time zone', () => {
    const spec = scheduleSpecOf(node('0 9 * * *', null, null, { startDate: '2025-07-01T08:00', endDate: '2025-08-01T00:00:00Z' }));
    expect(spec.startAt!.toISOString()).to.equal('2025-07-01T06:00:00.000Z');
    expect(spec.endAt!.toISOString()).to.equal('2025-08-01T00:00:00.000Z');
    expect(scheduleSpecOf(node('0 9 * * *', null, null, { startDate: null, endDate: null }))).to.not.have.any.keys('startAt', 'endAt');
  });

  it('expands and compacts minute and hour fields', () => {
    expect(expandField('*/20', 0, 59)).to.deep.equal([0, 20, 40]);
    expect(expandField('10/15', 0, 59)).to.deep.equal([10, 25, 40, 55]);
    expect(expandField('1-3,7,5', 0, 23)).to.deep.equal([1, 2, 3, 5, 7]);
    expect(compactList([0, 1, 2, 3, 5, 6, 9])).to.equal('0-3,5,6,9');
  });
});
