// The order launch scripts are offered in when a fix is applied: Slurm batch scripts first, then shell scripts,
// Dockerfiles, Kubernetes YAML, and Python entry points last. Pure.

export function scriptRank(file: string): number {
  const base = (file.split(/[\\/]/).pop() ?? file).toLowerCase();
  if (/\.(sbatch|slurm)$/.test(base)) return 0;
  if (/\.(sh|bash)$/.test(base)) return 1;
  if (/^dockerfile|\.dockerfile$/.test(base)) return 2;
  if (/\.ya?ml$/.test(base)) return 3;
  return 4;
}
