// Test files the fast runner (run.ts) loads into one process, each group with
// its reason: they compute the same costly results, which the service keeps
// process-wide (render/layout-client.ts keeps ELK's layouts by graph,
// render/topology-cache.ts built topologies by content), so the second file
// of a group finds them made. Spread over three processes, each paid for them.
export const TOGETHER: Record<string, string[]> = {
  // The North America dataset's logical layout takes some 6 s of CPU the first time in a process (ELK), 1 s after.
  'draw the demo datasets\' logical layouts': [
    'test/render/demo-labels.test.ts',
    'test/render/logical-layout.test.ts',
    'test/render/picture.test.ts',
    'test/routes/editor-roundtrip.test.ts',
    'test/routes/picture-size.test.ts',
    'test/svg-safety/template-bindings.test.ts',
  ],
};
