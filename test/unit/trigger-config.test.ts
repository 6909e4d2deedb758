import { expect } from 'chai';
import { findTriggerType, listTriggerTypes, TRIGGER_TYPES, validateTriggerConfig } from '../../db/catalogs/trigger-types.js';

describe('trigger type catalog and validateTriggerConfig', () => {
  it('refuses an unknown slug with SPEC.md message', () => {
    expect(validateTriggerConfig('GMAIL_NOPE', {})).to.deep.equal({ message: 'Unsupported trigger: GMAIL_NOPE' });
    // Slugs are exact: the lowercase form of a known one is not supported either.
    expect(validateTriggerConfig('github_commit_event', { owner: 'a', repo: 'b' })).to.deep.equal({
      message: 'Unsupported trigger: github_commit_event',
    });
  });

  it('refuses an undeclared key, naming the slug and the field', () => {
    expect(validateTriggerConfig('GMAIL_NEW_GMAIL_MESSAGE', { labelIds: 'INBOX', folder: 'x' })).to.deep.equal({
      message: 'Unknown trigger config field for GMAIL_NEW_GMAIL_MESSAGE: folder',
    });
    expect(validateTriggerConfig('SLACK_CHANNEL_CREATED', { channel: 'C1' })).to.deep.equal({
      message: 'Unknown trigger config field for SLACK_CHANNEL_CREATED: channel',
    });
  });

  it('refuses a missing required field and a value of the wrong type', () => {
    expect(validateTriggerConfig('GITHUB_COMMIT_EVENT', { owner: 'octocat' })).to.deep.equal({
      message: 'Invalid trigger config: repo - is required',
    });
    expect(validateTriggerConfig('GITHUB_COMMIT_EVENT', undefined)).to.deep.equal({ message: 'Invalid trigger config: owner - is required' });
    expect(validateTriggerConfig('GITHUB_COMMIT_EVENT', { owner: 'octocat', repo: null })).to.deep.equal({
      message: 'Invalid trigger config: repo - is required',
    });
    expect(validateTriggerConfig('GITHUB_COMMIT_EVENT', { owner: 'octocat', repo: 42 })).to.deep.equal({
      message: 'Invalid trigger config: repo - must be a string',
    });
    expect(validateTriggerConfig('GITHUB_COMMIT_EVENT', { owner: ' ', repo: 'hello' })).to.deep.equal({
      message: 'Invalid trigger config: owner - must not be empty',
    });
    expect(validateTriggerConfig('GOOGLE_CALENDAR_EVENT_STARTING_SOON', { minutesBefore: '10' })).to.deep.equal({
      message: 'Invalid trigger config: minutesBefore - must be a number',
    });
    expect(validateTriggerConfig('GOOGLE_CALENDAR_EVENT_STARTING_SOON', { minutesBefore: 10, includeAllDay: 'yes' })).to.deep.equal({
      message: 'Invalid trigger config: includeAllDay - must be a boolean',
    });
    expect(validateTriggerConfig('GMAIL_NEW_GMAIL_MESSAGE', ['INBOX'])).to.deep.equal({
      message: 'Invalid trigger config: triggerConfig - must be an object',
    });
  });

  it('drops platform-managed fields silently, even malformed, and keeps the user-configurable ones', () => {
    expect(validateTriggerConfig('GMAIL_NEW_GMAIL_MESSAGE', { interval: 1, labelIds: 'INBOX' })).to.deep.equal({ config: { labelIds: 'INBOX' } });
    expect(validateTriggerConfig('GMAIL_NEW_GMAIL_MESSAGE', { interval: 'often' })).to.deep.equal({ config: {} });
    expect(validateTriggerConfig('GITHUB_COMMIT_EVENT', { owner: 'octocat', repo: 'hello-world' })).to.deep.equal({
      config: { owner: 'octocat', repo: 'hello-world' },
    });
    expect(validateTriggerConfig('GOOGLE_CALENDAR_EVENT_STARTING_SOON', { minutesBefore: 15, calendarId: null, includeAllDay: false })).to.deep.equal(
      {
        config: { minutesBefore: 15, includeAllDay: false },
      },
    );
    expect(validateTriggerConfig('SLACK_CHANNEL_CREATED', null)).to.deep.equal({ config: {} });
  });

  it('describes every event completely: unique slugs, toolkit-prefixed, interval managed by the platform', () => {
    const slugs = TRIGGER_TYPES.map((t) => t.slug);
    expect(new Set(slugs).size).to.equal(slugs.length);
    expect(new Set(TRIGGER_TYPES.map((t) => t.toolkit))).to.include.all.keys('GMAIL', 'GITHUB', 'SLACK', 'HUBSPOT', 'GOOGLE_CALENDAR');
    for (const t of TRIGGER_TYPES) {
      expect(t.slug.startsWith(`${t.toolkit}_`), t.slug).to.equal(true);
      expect(t.name && t.description, t.slug).to.be.a('string');
      for (const f of t.configFields) {
        expect(['string', 'number', 'boolean']).to.include(f.type);
        if (f.name === 'interval') expect(f.userConfigurable, t.slug).to.equal(false);
      }
    }
    const repo = findTriggerType('GITHUB_COMMIT_EVENT')!.configFields.find((f) => f.name === 'repo');
    expect(repo).to.include({ required: true, userConfigurable: true, resourceType: 'github_repository' });
    // No trigger for messages of the team-chat tool (SPEC.md).
    expect(
      listTriggerTypes('slack')
        .map((t) => t.slug)
        .filter((s) => /MESSAGE/.test(s)),
    ).to.deep.equal([]);
    expect(listTriggerTypes(' github ').every((t) => t.toolkit === 'GITHUB')).to.equal(true);
  });
});
