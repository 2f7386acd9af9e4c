/** What every page is handed: the ports, the settings, the repositories' cache, the verify jobs and the route table. */
import type { WebServices, WebSettings } from './app.ts';
import type { Reply, RouteRequest } from './reply.ts';
import type { Repositories } from './repositories.ts';
import type { VerifyJobs } from './verify-jobs.ts';

export interface WebContext {
  services: WebServices;
  settings: WebSettings;
  repositories: Repositories;
  jobs: VerifyJobs;
  table: Route[];
}

export interface Route {
  method: 'GET' | 'POST';
  pattern: RegExp;
  handle(request: RouteRequest): Promise<Reply>;
}
