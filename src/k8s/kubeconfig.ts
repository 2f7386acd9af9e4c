/**
 * The controller's KubeConfig: a file (`--kubeconfig`), the pod's service account, or kubectl's default
 * ($KUBECONFIG, ~/.kube/config). A file that cannot be read or is no kubeconfig is the user's to fix, said in
 * their terms, never an internal error.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { WalrusGitError, messageOf } from '../core/errors.ts';

/** What a file-system error code means for a kubeconfig the user named. */
const UNREADABLE: Record<string, string> = {
  ENOENT: 'there is no such file', EACCES: 'permission denied', EPERM: 'operation not permitted',
  EISDIR: 'it is a directory', ENOTDIR: 'a part of the path is a file, not a directory',
};

/**
 * The kubeconfig cannot be used: where it came from, what is wrong, what to do.
 * What to do: follow the advice at the end of the message.
 */
export class KubeconfigError extends WalrusGitError {
  constructor(source: { file: string } | 'default', problem: string, data: Record<string, unknown> = {}) {
    const writeOne = '`kubectl config view --minify --raw > FILE` writes one';
    // $KUBECONFIG may list several files: the one that failed is named.
    const [named, advice] = source === 'default'
      ? [typeof data.file === 'string' ? `${data.file} (from $KUBECONFIG or ~/.kube/config)` : '$KUBECONFIG or ~/.kube/config', `fix it, or pass --kubeconfig FILE with a kubeconfig that names the cluster (${writeOne})`]
      : [source.file, `pass --kubeconfig the path of a kubeconfig that names the cluster (${writeOne}), or leave --kubeconfig out to use $KUBECONFIG or ~/.kube/config`];
    super('KUBECONFIG', `cannot use the kubeconfig ${named}: ${problem}; ${advice}`, { source: named, ...data });
  }
}

export type KubeconfigSource = { file: string } | 'in-cluster' | 'default';

export function loadKubeConfig(source: KubeconfigSource): KubeConfig {
  const kc = new KubeConfig();
  if (source === 'in-cluster') {
    kc.loadFromCluster();
    return kc;
  }
  try {
    if (source === 'default') kc.loadFromDefault();
    else kc.loadFromFile(source.file);
  } catch (error) {
    const { code, path } = error as { code?: unknown; path?: unknown };
    if (typeof code === 'string' && UNREADABLE[code]) throw new KubeconfigError(source, UNREADABLE[code], { code, ...(typeof path === 'string' ? { file: path } : {}) });
    // The YAML parser's or client-node's words (a syntax error, a cluster without a server): no secret in them.
    throw new KubeconfigError(source, `it is not a valid kubeconfig (${messageOf(error).split('\n')[0]})`);
  }
  if (!kc.getCurrentCluster()) {
    const context = kc.getCurrentContext();
    throw new KubeconfigError(source, context ? `its current context ${JSON.stringify(context)} names no cluster it defines` : 'it sets no current-context');
  }
  return kc;
}
