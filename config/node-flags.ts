// The V8 settings and the environment a worker process runs with. The bin's shebang and `npm start` pass
// them (a process's heap and its allocator are set up when it starts, so they cannot be set from here);
// test/unit/node-flags.test.ts keeps the three in step, and the benchmarks start their worker with them.
//
// Why: left alone, V8 sizes its heap for the machine, not for the worker. On a 24 GB host it commits
// 64 MB of young generation (32 MB semi-spaces) from the first busy second, and lets the old generation
// grow to about four times what was live after the last full collection before it collects again (the
// growing factor V8 uses when the heap limit is 2 GB or more). The worker's live set is about 100 MB
// (half of it code and module sources), so a backfill peaked at 700-800 MB, most of it garbage. With
// 8 MB semi-spaces and a 1 GB limit (under which V8 lets the old generation grow by about 1.6 times)
// the same backfill peaks near 350 MB (bench/initial-sync.ts, 10,000 entitlements). The limit is ten
// times the live set: a ceiling against a runaway, not what keeps the worker small.
export const WORKER_NODE_FLAGS = ['--max-semi-space-size=8', '--max-old-space-size=1024'] as const;

// Why MALLOC_ARENA_MAX=2: glibc gives threads that allocate at once malloc arenas of their own (up to
// eight per core) and keeps what they free there for reuse. The worker runs 16 threads (libuv's pool,
// Temporal core's Rust runtime, the workflow thread), and over a backfill their arenas held tens of MB
// of freed memory, more in some runs than others: HubSpot, 10,000 entitlements, worker peaks of 374 and
// 422 MB with glibc's default, 351 and 355 MB with two arenas (bench/probe runs on this 2-core VM).
// Other C libraries ignore the variable.
export const WORKER_ENV = { MALLOC_ARENA_MAX: '2' } as const;

/** `NAME=value` for each of WORKER_ENV, as a shell or `env` takes them before a command. */
export const WORKER_ENV_ASSIGNMENTS = Object.entries(WORKER_ENV).map(([name, value]) => `${name}=${value}`);
