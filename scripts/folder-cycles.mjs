// No cycle between the top-level folders of src/, through any of their files: reads the cruise
// that `npm run lint:layers` makes (dependency-cruiser's JSON on stdin), folds every file into its
// folder (src/<folder>; a file at src/ stands for itself) and fails on any strongly connected
// group, naming the imports that tie it. With --edges it prints the folder graph, `a -> b` a line.
let text = '';
for await (const chunk of process.stdin) text += chunk;
const cruise = JSON.parse(text);
const folderOf = (path) => /^src\/[^/]+/.exec(path)?.[0].replace(/^src\//, '');

/** folder -> folder -> the imports (file -> file) behind that arrow */
const arrows = new Map();
for (const module of cruise.modules) {
  const from = folderOf(module.source);
  if (!from) continue;
  for (const dependency of module.dependencies) {
    const to = folderOf(dependency.resolved);
    if (!to || to === from) continue;
    if (!arrows.has(from)) arrows.set(from, new Map());
    const targets = arrows.get(from);
    if (!targets.has(to)) targets.set(to, []);
    targets.get(to).push(`${module.source} -> ${dependency.resolved}`);
  }
}

if (process.argv.includes('--edges')) {
  for (const from of [...arrows.keys()].sort()) {
    for (const to of [...arrows.get(from).keys()].sort()) console.log(`${from} -> ${to}`);
  }
}

// Tarjan's strongly connected components over the folder graph.
const index = new Map();
const low = new Map();
const stack = [];
const onStack = new Set();
const groups = [];
let next = 0;
function visit(folder) {
  index.set(folder, next);
  low.set(folder, next);
  next++;
  stack.push(folder);
  onStack.add(folder);
  for (const to of arrows.get(folder)?.keys() ?? []) {
    if (!index.has(to)) {
      visit(to);
      low.set(folder, Math.min(low.get(folder), low.get(to)));
    } else if (onStack.has(to)) {
      low.set(folder, Math.min(low.get(folder), index.get(to)));
    }
  }
  if (low.get(folder) === index.get(folder)) {
    const group = [];
    let member;
    do {
      member = stack.pop();
      onStack.delete(member);
      group.push(member);
    } while (member !== folder);
    if (group.length > 1) groups.push(group.sort());
  }
}
for (const folder of arrows.keys()) if (!index.has(folder)) visit(folder);

if (groups.length === 0) {
  console.log(`no cycle between the ${index.size} top-level folders and files of src/`);
} else {
  for (const group of groups) {
    console.error(`error no-folder-cycle: ${group.join(', ')} import each other:`);
    const members = new Set(group);
    for (const from of group) {
      for (const [to, imports] of arrows.get(from) ?? []) {
        if (members.has(to)) console.error(`  ${from} -> ${to}: ${imports.join(', ')}`);
      }
    }
  }
  process.exitCode = 1;
}
