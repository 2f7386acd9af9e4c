// express-app: the tenant's example app of git-remote-walrus (README.md here).
import { createApp } from './app.js';

const port = Number(process.env.PORT ?? 3000);
const server = createApp().listen(port, () => console.log(`listening on port ${port}`));

// Kubernetes sends SIGTERM while it takes the pod out of its Service (and the ingress out of its upstreams): keep
// serving for a moment, so requests routed here before that took effect still get an answer, then finish and exit.
const drainMs = Number(process.env.SHUTDOWN_DELAY_MS ?? 2000);
const stop = (signal) => {
  console.log(`${signal}: stopping in ${drainMs} ms`);
  setTimeout(() => server.close(() => process.exit(0)), drainMs).unref();
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
