import type { CommandModule } from 'yargs';
import type { CliArgs } from './app.ts';
import { artifactCommand } from './artifact.ts';
import { attestCommand, attestationsCommand } from './attestations.ts';
import { checkoutCommand } from './checkout.ts';
import { controllerCommand } from './controller.ts';
import { gatewayCommand } from './gateway.ts';
import { deploymentsCommand } from './deployments.ts';
import { daemonCommand } from './daemon.ts';
import { devnetCommand } from './devnet.ts';
import { gcCommand } from './gc.ts';
import { extendCommand } from './lifetime.ts';
import { initCommand } from './init.ts';
import { leaseCommand } from './lease.ts';
import { logCommand } from './log.ts';
import { manifestCommand } from './manifest.ts';
import { protectCommand, unprotectCommand } from './protect.ts';
import { providerCommand } from './provider.ts';
import { providersCommand } from './providers.ts';
import { readersCommand } from './readers.ts';
import { secretsCommand } from './secrets.ts';
import { showCommand } from './show.ts';
import { verifyCommand } from './verify.ts';
import { webCommand } from './web.ts';
import { whoamiCommand } from './whoami.ts';
import { writersCommand } from './writers.ts';

/** Every `git walrus` command. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each command has its own argument type; yargs takes them as one list
export const commands: CommandModule<CliArgs, any>[] = [
  initCommand,
  whoamiCommand,
  writersCommand,
  readersCommand,
  protectCommand,
  unprotectCommand,
  logCommand,
  showCommand,
  verifyCommand,
  gcCommand,
  extendCommand,
  devnetCommand,
  daemonCommand,
  checkoutCommand,
  artifactCommand,
  attestCommand,
  attestationsCommand,
  manifestCommand,
  controllerCommand,
  gatewayCommand,
  providerCommand,
  providersCommand,
  leaseCommand,
  secretsCommand,
  deploymentsCommand,
  webCommand,
];
