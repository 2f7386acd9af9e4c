/** The route table: every page has a stable URL (ids, refs and paths in the path or the query, never in state). */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { WebServices, WebSettings } from './app.ts';
import { accessPage } from './pages/access.ts';
import { deploymentsPage } from './pages/deployments.ts';
import { repositoriesPage } from './pages/home.ts';
import { leasePage, marketPage, providerPage } from './pages/market.ts';
import { pushesPage, startVerify, verifyStatus } from './pages/pushes.ts';
import { blamePage, historyPage, overviewPage, rawFile, treePage } from './pages/code.ts';
import { commitPage, commitsPage, comparePage, refsPage } from './pages/repository.ts';
import { Repositories } from './repositories.ts';
import type { Reply, RouteRequest } from './reply.ts';
import { VerifyJobs } from './verify-jobs.ts';
import type { Route, WebContext } from './web-context.ts';

const ID = '(0x[0-9a-f]{64})';

export async function routes(services: WebServices, settings: WebSettings): Promise<WebContext> {
  const context = { services, settings, repositories: new Repositories(services, settings), jobs: new VerifyJobs(services), table: [] as Route[] } satisfies WebContext;
  const statics = await staticFiles();
  const get = (path: string, handle: (request: RouteRequest) => Promise<Reply>): Route => ({ method: 'GET', pattern: new RegExp(`^${path}$`), handle });
  context.table.push(
    get('/', (r) => repositoriesPage(context, r)),
    get(`/repos/${ID}`, (r) => overviewPage(context, r)),
    get(`/repos/${ID}/tree`, (r) => treePage(context, r)),
    get(`/repos/${ID}/raw`, (r) => rawFile(context, r)),
    get(`/repos/${ID}/history`, (r) => historyPage(context, r)),
    get(`/repos/${ID}/blame`, (r) => blamePage(context, r)),
    get(`/repos/${ID}/commits`, (r) => commitsPage(context, r)),
    get(`/repos/${ID}/commit/([0-9a-f]{4,64})`, (r) => commitPage(context, r)),
    get(`/repos/${ID}/compare`, (r) => comparePage(context, r)),
    get(`/repos/${ID}/refs`, (r) => refsPage(context, r)),
    get(`/repos/${ID}/pushes`, (r) => pushesPage(context, r)),
    get(`/repos/${ID}/verify\\.json`, (r) => verifyStatus(context, r)),
    { method: 'POST', pattern: new RegExp(`^/repos/${ID}/verify$`), handle: (r) => startVerify(context, r) },
    get(`/repos/${ID}/access`, (r) => accessPage(context, r)),
    get(`/repos/${ID}/deployments`, (r) => deploymentsPage(context, r)),
    get('/market', () => marketPage(context)),
    get(`/market/providers/${ID}`, (r) => providerPage(context, r)),
    get(`/market/leases/${ID}`, (r) => leasePage(context, r)),
    get('/static/([a-z0-9.-]+)', async ({ params }) => {
      const file = statics.get(params[0]!);
      if (file === undefined) return { status: 404, type: 'text/plain', body: 'no such file\n' };
      return { type: file.type, body: file.body, headers: { 'cache-control': 'max-age=3600' } };
    }),
  );
  return context;
}

/** The page script and styles: ours from src/web/static, the diff and highlighting styles from their packages. */
async function staticFiles(): Promise<Map<string, { type: string; body: Uint8Array }>> {
  const require = createRequire(import.meta.url);
  // Two levels below the package root both as src/web/*.ts and as dist/web/*.js.
  const own = (name: string) => new URL(`../../src/web/static/${name}`, import.meta.url);
  const files: Array<[string, string, URL | string]> = [
    ['app.js', 'text/javascript; charset=utf-8', own('app.js')],
    ['style.css', 'text/css; charset=utf-8', own('style.css')],
    ['diff2html.css', 'text/css; charset=utf-8', require.resolve('diff2html/bundles/css/diff2html.min.css')],
    ['highlight.css', 'text/css; charset=utf-8', require.resolve('highlight.js/styles/github.css')],
  ];
  return new Map(await Promise.all(files.map(async ([name, type, path]) => [name, { type, body: await readFile(path) }] as const)));
}
