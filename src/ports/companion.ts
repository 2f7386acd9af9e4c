/**
 * Work that runs beside the controller's WalrusApp loop while this replica leads, and stops with it (provider mode's
 * reconciler), so two replicas never both act.
 */
export interface Companion {
  start(): void;
  stop(): Promise<void>;
  /** How many leases it serves now (the controller's `walrus_gitops_leases_served`). */
  served?(): number;
}
