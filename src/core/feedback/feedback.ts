import { randomUUID } from 'node:crypto';
import { systemClock, type Clock } from '../clock.ts';

export interface FeedbackRecord {
  id: string;
  name: string;
  email: string;
  subject: string;
  message: string;
  /** ISO 8601 time the feedback was received. */
  createdAt: string;
  clientIp: string;
  userAgent: string | null;
}

/** Where feedback is kept; implemented in store/. `add` resolves only once the record is durable. */
export interface FeedbackRepository {
  add(record: FeedbackRecord): Promise<void>;
  list(options: { limit: number; before?: string }): Promise<FeedbackRecord[]>;
}

/** Feedback as submitted, with the email resolved (from the body or the signed-in user). */
export interface FeedbackInput {
  name: string;
  email: string;
  subject: string;
  message: string;
}

export interface FeedbackClient {
  ip: string;
  userAgent?: string;
}

export class FeedbackService {
  constructor(
    private readonly repository: FeedbackRepository,
    private readonly clock: Clock = systemClock,
  ) {}

  async submit(input: FeedbackInput, client: FeedbackClient): Promise<FeedbackRecord> {
    const record: FeedbackRecord = {
      id: randomUUID(),
      ...input,
      createdAt: new Date(this.clock.now()).toISOString(),
      clientIp: client.ip,
      userAgent: client.userAgent?.slice(0, 512) ?? null,
    };
    await this.repository.add(record);
    return record;
  }

  list(options: { limit?: number; before?: string } = {}): Promise<FeedbackRecord[]> {
    return this.repository.list({ limit: options.limit ?? 100, before: options.before });
  }
}
