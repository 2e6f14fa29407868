import fs from 'node:fs/promises';
import path from 'node:path';

export interface AnswerRecord {
  id: string;
  question: string;
  answer: string;
  citations: string[];
  mode: 'llm' | 'extractive' | 'not-found';
  at: string;
}

export interface FeedbackRecord {
  answerId: string;
  rating: 'up' | 'down';
  comment?: string;
  question: string;
  answer: string;
  citations: string[];
  mode: AnswerRecord['mode'];
  at: string;
}

/**
 * Remembers recent answers (so feedback names what it is about) and stores feedback: in memory, and appended as
 * JSON lines to a file when one is configured.
 */
export class FeedbackStore {
  private readonly answers = new Map<string, AnswerRecord>();
  readonly feedback: FeedbackRecord[] = [];

  constructor(
    private readonly file?: string,
    private readonly maxAnswers = 2000,
  ) {}

  remember(answer: AnswerRecord): void {
    this.answers.set(answer.id, answer);
    if (this.answers.size > this.maxAnswers) this.answers.delete(this.answers.keys().next().value as string);
  }

  has(answerId: string): boolean {
    return this.answers.has(answerId);
  }

  async add(answerId: string, rating: 'up' | 'down', comment?: string): Promise<FeedbackRecord | undefined> {
    const answer = this.answers.get(answerId);
    if (!answer) return undefined;
    const record: FeedbackRecord = {
      answerId,
      rating,
      ...(comment ? { comment } : {}),
      question: answer.question,
      answer: answer.answer,
      citations: answer.citations,
      mode: answer.mode,
      at: new Date().toISOString(),
    };
    // One rating per answer: a second vote replaces the first.
    const previous = this.feedback.findIndex((f) => f.answerId === answerId);
    if (previous >= 0) this.feedback.splice(previous, 1);
    this.feedback.push(record);
    if (this.file) {
      await fs.mkdir(path.dirname(this.file), { recursive: true });
      await fs.appendFile(this.file, `${JSON.stringify(record)}\n`);
    }
    return record;
  }
}
