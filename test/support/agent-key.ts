// Agent credentials as a real agent makes them: an Ed25519 key pair from @noble/ed25519.
import { getPublicKeyAsync, utils } from '@noble/ed25519'

export async function agentPublicKey(): Promise<string> {
  return Buffer.from(await getPublicKeyAsync(utils.randomSecretKey())).toString('base64url')
}

export async function pairingRequest(code: string, overrides: Record<string, unknown> = {}) {
  return {
    protocolVersion: '1',
    code,
    agent: { name: 'Kitchen Pi', version: '0.1.0', platform: 'linux', installationId: 'installation_0001' },
    credential: { algorithm: 'Ed25519', publicKey: { kty: 'OKP', crv: 'Ed25519', x: await agentPublicKey() } },
    ...overrides,
  }
}
