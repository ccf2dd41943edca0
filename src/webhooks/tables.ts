// Table types of migration 0010 (webhooks), added to the database's Kysely type from here so that
// the webhook capability keeps its tables beside its code.
import type { ColumnType, Generated } from 'kysely';

type Timestamp = ColumnType<Date, Date | string, Date | string>;
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;

export type WebhookMessageStatus = 'PENDING' | 'DELIVERED' | 'FAILED';

export interface WebhookEndpointsTable {
  id: string;
  partner_id: string;
  url: string;
  description: string | null;
  events: string[];
  enabled: boolean;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface WebhookMessagesTable {
  id: string;
  seq: Generated<string>;
  endpoint_id: string;
  partner_id: string;
  event_type: string;
  rank: number;
  payload: ColumnType<unknown, string, string>;
  status: WebhookMessageStatus;
  attempts: Generated<number>;
  next_attempt_at: Timestamp;
  last_error: string | null;
  created_at: Timestamp;
  delivered_at: NullableTimestamp;
}

export interface WebhookAttemptsTable {
  id: Generated<string>;
  message_id: string;
  attempted_at: Timestamp;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
}

declare module '../db/schema.ts' {
  interface DB {
    webhook_endpoints: WebhookEndpointsTable;
    webhook_messages: WebhookMessagesTable;
    webhook_attempts: WebhookAttemptsTable;
  }
}
