// A bench file run by itself (`node dist/scripts/bench/<file>.js`): its rows, then the exit status.
export function runAlone(mod: NodeModule, main: () => Promise<void>): void {
  if (require.main !== mod) return;
  main().then(
    () => process.exit(0),
    (err: unknown) => {
      process.stderr.write(`bench failed: ${(err as Error)?.stack ?? String(err)}\n`);
      process.exit(1);
    },
  );
}
