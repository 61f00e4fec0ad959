// Serves an in-memory embedded PostgreSQL until stdin closes or a signal arrives; prints its URL
// as one JSON line. The test run and the benchmark use it when no server is configured.
import { startEmbeddedPostgres } from '../src/database/embedded-postgres';

async function main(): Promise<void> {
  const dataDir = process.argv[2];
  const embedded = await startEmbeddedPostgres({ dataDir, maxConnections: 64 });
  process.stdout.write(JSON.stringify({ url: embedded.url }) + '\n');
  const stop = (): void => {
    void embedded.stop().finally(() => process.exit(0));
  };
  process.stdin.on('end', stop);
  process.stdin.resume();
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

void main();
