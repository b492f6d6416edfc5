// After every cluster test file: no process the harness started may outlive the run (issue 13: "stops every
// process it started"). Every process the harness starts names this run's temporary folder in its arguments
// (homelab-cp-<run>-...: etcd's data dir, the API server's certificates, the webhook's and kubectl's kubeconfig);
// any survivor is killed and fails the run, named.
const { spawnSync } = require('child_process');

module.exports = async function globalTeardown() {
  const ps = spawnSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' }).stdout.split('\n');
  const marker = `homelab-cp-${process.env.HOMELAB_CLUSTER_RUN}-`;
  const ours = ps.map((l) => l.trim()).filter((l) => l.includes(marker) && !l.includes('global-teardown'));
  if (ours.length === 0) return;
  for (const line of ours) {
    try {
      process.kill(Number(line.split(' ')[0]), 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
  throw new Error(`the cluster test left ${ours.length} process(es) running (now killed):\n${ours.join('\n')}`);
};
