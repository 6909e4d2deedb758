/**
 * Tasks of Object records: to-dos with a due date and assignees, open or completed (SPEC.md, States and
 * transitions). Creating and completing a task write an outbox event in the same flush, for automations.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { BadRequestError, ConflictError, NotFoundError } from '../../lib/errors.js';
import { OutboxEvent } from '../automations/outbox-event.entity.js';
import { RecordTask } from './record-task.entity.js';
import { User } from '../accounts/user.entity.js';
import type { DataTable } from './data-table.entity.js';
import { query, sqlOf } from './table-lookups.js';
import { recordExists, requireRecord } from './record-activities.service.js';

export interface TaskInput {
  content: string;
  /** ISO date-time, or null for no due date. */
  dueDate?: string | null;
  assigneeIds?: number[];
}

export type TaskPatch = Partial<TaskInput>;

type UserRef = { id: number; email: string } | null;

/** A task as the API answers it. */
export interface TaskView {
  id: number;
  object: string;
  rowId: string;
  content: string;
  dueDate: string | null;
  assigneeIds: number[];
  status: 'open' | 'completed';
  completedAt: string | null;
  completedBy: UserRef;
  createdBy: UserRef;
  createdAt: string;
  updatedAt: string;
}

/** Outbox event types of tasks; payload `{ tableId, tableName, kind, rowId, task }`. */
export const TASK_EVENTS = { created: 'OBJECT_TASK_CREATED', completed: 'OBJECT_TASK_COMPLETED' } as const;

const userRef = (user: User | null | undefined): UserRef => (user ? { id: user.id, email: user.email } : null);

export function taskView(task: RecordTask): TaskView {
  return {
    id: task.id,
    object: task.table.name,
    rowId: task.rowId,
    content: task.content,
    dueDate: task.dueDate?.toISOString() ?? null,
    assigneeIds: task.assigneeIds,
    status: task.completedAt ? 'completed' : 'open',
    completedAt: task.completedAt?.toISOString() ?? null,
    completedBy: userRef(task.completedBy),
    createdBy: userRef(task.createdBy),
    createdAt: task.createdAt.toISOString(),
    updatedAt: task.updatedAt.toISOString(),
  };
}

function checkContent(content: string): void {
  if (!content.trim()) throw new BadRequestError('content must not be blank', [{ code: 'invalid', path: 'content', message: 'must not be blank' }]);
}

/** Assignees must be users of the task's account (400 naming the missing ones otherwise). */
async function checkAssignees(em: EntityManager, table: DataTable, ids: number[]): Promise<number[]> {
  const unique = [...new Set(ids)];
  if (!unique.length) return [];
  const found = await query<{ id: number }>(sqlOf(em), 'select id from users where account_id = ? and id = any(?)', [table.account.id, unique]);
  const missing = unique.filter((id) => !found.some((u) => u.id === id));
  if (missing.length) {
    throw new BadRequestError(`No user ${missing.join(', ')} in this account`, [
      { code: 'not_found', path: 'assigneeIds', message: `no user ${missing.join(', ')} in this account` },
    ]);
  }
  return unique;
}

function writeEvent(em: EntityManager, task: RecordTask, type: string): void {
  const { table } = task;
  em.create(OutboxEvent, {
    account: table.account,
    type,
    payload: { tableId: table.id, tableName: table.name, kind: table.kind, rowId: task.rowId, task: taskView(task) },
  });
}

// Open tasks first, then by due date (none last), then by creation: a keyset of three never-null values.
const SORT_KEY = `(completed_at is not null)::int as done, coalesce(due_date, 'infinity'::timestamptz) as due, id`;

const encodeCursor = (row: { done: number; due: Date | string; id: number }) =>
  Buffer.from(
    JSON.stringify([row.done, row.due instanceof Date ? (Number.isFinite(row.due.getTime()) ? row.due.toISOString() : 'infinity') : row.due, row.id]),
  ).toString('base64url');

function decodeCursor(cursor: string): [number, string, number] {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString()) as unknown;
    if (Array.isArray(value) && value.length === 3 && typeof value[0] === 'number' && typeof value[1] === 'string' && typeof value[2] === 'number') {
      return value as [number, string, number];
    }
  } catch {
    // falls through to the 400 below
  }
  throw new BadRequestError('Invalid cursor', [{ code: 'invalid', path: 'query.cursor', message: 'is not a nextCursor of this list' }]);
}

/** Tasks of one record: open first, then by due date. */
export async function listTasks(em: EntityManager, table: DataTable, rowId: string, page: { limit: number; cursor?: string }) {
  await requireRecord(em, table, rowId);
  const after = page.cursor ? decodeCursor(page.cursor) : undefined;
  const keyset = after ? `and ((completed_at is not null)::int, coalesce(due_date, 'infinity'::timestamptz), id) > (?, ?::timestamptz, ?)` : '';
  const rows = await query<{ done: number; due: Date; id: number }>(
    sqlOf(em),
    `select ${SORT_KEY} from record_tasks where table_id = ? and row_id = ? ${keyset} order by 1, 2, 3 limit ?`,
    [table.id, rowId, ...(after ?? []), page.limit + 1],
  );
  const keys = rows.slice(0, page.limit);
  const tasks = await em.find(RecordTask, { id: { $in: keys.map((r) => r.id) } }, { populate: ['createdBy', 'completedBy'] });
  const byId = new Map(tasks.map((t) => [t.id, t]));
  return {
    agentry: keys.map((k) => taskView(byId.get(k.id)!)),
    nextCursor: rows.length > page.limit ? encodeCursor(keys.at(-1)!) : null,
  };
}

export async function createTask(em: EntityManager, table: DataTable, rowId: string, input: TaskInput, userId: number): Promise<TaskView> {
  checkContent(input.content);
  await requireRecord(em, table, rowId);
  const assigneeIds = await checkAssignees(em, table, input.assigneeIds ?? []);
  const createdBy = await em.findOneOrFail(User, { id: userId, account: table.account });
  // The event carries the task's id, known after its insert: both flushes share one transaction.
  const task = await em.transactional(async (tx) => {
    const created = tx.create(RecordTask, {
      account: table.account,
      table,
      rowId,
      content: input.content,
      dueDate: input.dueDate ? new Date(input.dueDate) : null,
      assigneeIds,
      createdBy,
    });
    await tx.flush();
    writeEvent(tx, created, TASK_EVENTS.created);
    return created;
  });
  return taskView(task);
}

/** A task of the Object whose record still exists. */
export async function findTask(em: EntityManager, table: DataTable, id: number): Promise<RecordTask> {
  const task = await em.findOne(RecordTask, { id, table, account: table.account }, { populate: ['createdBy', 'completedBy'] });
  if (!task || !(await recordExists(em, table, task.rowId))) throw new NotFoundError(`Task ${id} not found in Object "${table.name}"`);
  return task;
}

export async function updateTask(em: EntityManager, task: RecordTask, patch: TaskPatch): Promise<TaskView> {
  if (patch.content !== undefined) {
    checkContent(patch.content);
    task.content = patch.content;
  }
  if (patch.dueDate !== undefined) task.dueDate = patch.dueDate ? new Date(patch.dueDate) : null;
  if (patch.assigneeIds !== undefined) task.assigneeIds = await checkAssignees(em, task.table, patch.assigneeIds);
  await em.flush();
  return taskView(task);
}

/** open → completed (SPEC.md); completing a completed task is a 409, as any move the state table lacks. */
export async function completeTask(em: EntityManager, task: RecordTask, userId: number): Promise<TaskView> {
  if (task.completedAt) throw new ConflictError(`Task ${task.id} is already completed`);
  task.completedAt = new Date();
  task.completedBy = await em.findOneOrFail(User, { id: userId, account: task.table.account });
  writeEvent(em, task, TASK_EVENTS.completed);
  await em.flush();
  return taskView(task);
}

/** completed → open; an open task answers 409. */
export async function uncompleteTask(em: EntityManager, task: RecordTask): Promise<TaskView> {
  if (!task.completedAt) throw new ConflictError(`Task ${task.id} is not completed`);
  task.completedAt = null;
  task.completedBy = null;
  await em.flush();
  return taskView(task);
}

export async function deleteTask(em: EntityManager, task: RecordTask): Promise<void> {
  await em.removeAndFlush(task);
}
