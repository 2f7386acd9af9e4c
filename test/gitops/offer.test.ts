import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DEFAULT_OFFER, OfferError, parseOffer } from '../../src/gitops/api/offer.ts';

test('an empty offer is every default', () => {
  assert.equal(parseOffer({}), DEFAULT_OFFER);
  assert.is(parseOffer({}).ingress, undefined);
});

test('given fields replace their defaults; the rest stay', () => {
  const offer = parseOffer({ quota: { memory: '2Gi' }, maxReplicas: 3, keepArtifacts: 5, buildEnv: [{ name: 'npm_config_registry', value: 'http://mirror:4873' }] });
  assert.is(offer.quota.memory, '2Gi');
  assert.is(offer.quota.cpu, DEFAULT_OFFER.quota.cpu);
  assert.is(offer.maxReplicas, 3);
  assert.equal([offer.keepArtifacts, DEFAULT_OFFER.keepArtifacts], [5, 3]);
  assert.equal(offer.buildEnv, [{ name: 'npm_config_registry', value: 'http://mirror:4873' }]);
});

test('requireCertifiedHeads: absent leaves the network to decide (on where it has an anchor); true and false are kept', () => {
  assert.not.ok('requireCertifiedHeads' in parseOffer({}));
  assert.is(parseOffer({ requireCertifiedHeads: true }).requireCertifiedHeads, true);
  assert.is(parseOffer({ requireCertifiedHeads: false }).requireCertifiedHeads, false);
});

test('ingress: https once TLS is configured, ingress-nginx pods as the default source, no load balancer unless asked', () => {
  const plain = parseOffer({ ingress: { domain: 'apps.example.com' } }).ingress!;
  assert.is(plain.scheme, 'http');
  assert.is(plain.loadBalancer, false);
  assert.equal(plain.from, [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } } }]);
  const tls = parseOffer({ ingress: { domain: 'apps.example.com', tlsSecretName: 'wildcard', className: 'nginx', from: [{ ipBlock: { cidr: '10.244.1.250/32' } }] } }).ingress!;
  assert.is(tls.scheme, 'https');
  assert.is(tls.className, 'nginx');
  assert.equal(tls.from, [{ ipBlock: { cidr: '10.244.1.250/32' } }]);
});

test('each bad field is named in the error, with what would be right', () => {
  const cases: [unknown, string, RegExp][] = [
    [[], '(the file)', /JSON object/],
    [{ quotas: {} }, '(the file)', /unknown field "quotas"/],
    [{ quota: { memory: 'lots' } }, 'quota.memory', /quantity/],
    [{ quota: { pods: 0 } }, 'quota.pods', /at least 1/],
    [{ maxReplicas: 2.5 }, 'maxReplicas', /whole number/],
    [{ keepArtifacts: 0 }, 'keepArtifacts', /at least 1/],
    [{ ingress: { domain: 'Apps.Example.com' } }, 'ingress.domain', /lower-case DNS name/],
    [{ ingress: { domain: 'a.example', from: {} } }, 'ingress.from', /NetworkPolicy peers/],
    [{ egress: { except: ['10.0.0.0/33'] } }, 'egress.except', /IPv4 CIDR/],
    [{ buildEnv: [{ name: '1X', value: 'v' }] }, 'buildEnv[0].name', /environment variable/],
    [{ requireCertifiedHeads: 'yes' }, 'requireCertifiedHeads', /true or false/],
  ];
  for (const [json, field, reason] of cases) {
    try {
      parseOffer(json);
      assert.unreachable(`accepted ${JSON.stringify(json)}`);
    } catch (error) {
      assert.instance(error, OfferError);
      assert.is((error as OfferError).data.field, field);
      assert.match((error as OfferError).message, reason);
    }
  }
});

test.run();
