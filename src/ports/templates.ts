/**
 * The objects the GitOps controller applies for an app, made by pure functions (src/gitops/templates/): a WalrusApp
 * in, Kubernetes objects out, the same objects for the same input.
 */
import type { V1Deployment, V1Ingress, V1Job, V1NetworkPolicy, V1PodDisruptionBudget, V1Service } from '@kubernetes/client-node';
import type { AppManifest, Artifact, WalrusApp } from './walrus-app.ts';

/** A built commit ready to run: what a Deployment's pods fetch and start. */
export interface Release {
  commit: string;
  artifact: Artifact;
  /** The app's manifest at the commit (absent for releases recorded before manifests were read: the spec alone). */
  manifest?: AppManifest;
  /** The lease's sealed secrets the pods start with (`lease_secrets`): their blob and version, never their values. */
  secrets?: { blobId: string; version: number };
}

export interface Templates {
  buildJob(app: WalrusApp, build: { commit: string; configHash: string; attempt?: number }): V1Job;
  runDeployment(app: WalrusApp, release: Release): V1Deployment;
  appService(app: WalrusApp): V1Service;
  /** The app's PodDisruptionBudget; null when it runs fewer than two replicas (no budget then). */
  appDisruptionBudget(app: WalrusApp): V1PodDisruptionBudget | null;
  /** The app's ingress allowance in a tenant namespace; absent when the controller has no ingress to allow. */
  appNetworkPolicy?(app: WalrusApp): V1NetworkPolicy;
  /** The app's Ingress and URL, when the provider exposes apps (its offer's ingress), else null. */
  appIngress(app: WalrusApp): { ingress: V1Ingress; url: string } | null;
  buildJobName(app: WalrusApp, commit: string, configHash: string, attempt?: number): string;
}
