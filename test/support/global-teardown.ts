export default async function globalTeardown(): Promise<void> {
  const child = globalThis.__embeddedDb;
  if (child && child.exitCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.stdin?.end();
    await exited;
  }
}
