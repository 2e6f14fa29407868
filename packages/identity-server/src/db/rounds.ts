/**
 * A background round over stored work (due rows of an outbox) that runs at most once at a time in this process: `kick`
 * starts one unless one is running (a failed round is left to the next kick), `idle` waits for the one in progress.
 */
export function singleRound(round: () => Promise<void>): { kick(): void; idle(): Promise<void> } {
  let running: Promise<void> | undefined;
  return {
    kick() {
      running ??= round()
        .catch(() => undefined)
        .finally(() => (running = undefined));
    },
    idle: async () => {
      await running;
    },
  };
}
