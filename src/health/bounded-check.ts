// A check that answers within a bound whatever the thing checked does. One runs at a time: checks
// asked for while it runs share it, so a frozen database or store never piles up checks (or
// connections) however often the orchestrator asks.
export class BoundedCheck {
  private running: Promise<boolean> | null = null;

  constructor(
    private readonly check: () => Promise<unknown>,
    private readonly withinMs: number,
  ) {}

  /** True when the check succeeded within the bound. */
  async passes(): Promise<boolean> {
    this.running ??= this.check()
      .then(
        () => true,
        () => false,
      )
      .finally(() => {
        this.running = null;
      });
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), this.withinMs);
    });
    try {
      return await Promise.race([this.running, late]);
    } finally {
      clearTimeout(timer);
    }
  }
}
