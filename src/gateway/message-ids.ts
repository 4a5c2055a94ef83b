// The random IDs a gateway session makes: its own, its challenge's, and its messages'.

export function randomHex(bytes: number): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString('hex')
}

export const newMessageId = (): string => `msg_${randomHex(16)}`
