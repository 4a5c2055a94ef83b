// Someone on the LAN at the agent gateway who never authenticates: a raw TCP connection from a
// loopback address of its choice that asks for the WebSocket upgrade and, once let in, starts a
// masked text frame announcing `announced` bytes, sends `sent` of them, and holds the connection.
// For the gateway's budget tests and the security bench.
import { connect, type Socket } from 'node:net'
import { GATEWAY_PATH } from '../../src/protocol/discovery.ts'

export interface Stranger {
  socket: Socket
  /**
   * The status of the HTTP answer to the upgrade (101 when let in), once the frame's bytes are handed to the socket.
   */
  status: Promise<number>
  closed: Promise<void>
}

export function gatewayStranger(port: number, localAddress: string, announced: number, sent: number): Stranger {
  const socket = connect({ host: '127.0.0.1', port, localAddress })
  let received = ''
  const status = new Promise<number>((resolve, reject) => {
    const answered = (data: Buffer) => {
      received += data.toString('latin1')
      const match = /^HTTP\/1\.1 (\d{3})/.exec(received)
      if (!match || !received.includes('\r\n\r\n')) return
      socket.off('data', answered)
      const code = Number(match[1])
      if (code !== 101) return resolve(code)
      const header = Buffer.alloc(14)
      header[0] = 0x81
      header[1] = 0x80 | 127
      header.writeBigUInt64BE(BigInt(announced), 2)
      header.writeUInt32BE(0x01020304, 10)
      socket.write(header)
      socket.write(Buffer.alloc(sent, 0x61), () => resolve(code))
    }
    socket.on('data', answered)
    socket.on('error', reject)
  })
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()))
  socket.write(
    `GET ${GATEWAY_PATH} HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nupgrade: ` +
      `websocket\r\nconnection: Upgrade\r\nsec-websocket-key: ` +
      `${Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString('base64')}\r\nsec-websocket-version: ` +
      `13\r\n\r\n`,
  )
  return { socket, status, closed }
}
