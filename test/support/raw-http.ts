// Raw HTTP/1.1 over a TCP socket, for requests fetch cannot make: a body sent late, or never.
import { connect, type Socket } from 'node:net'

export interface RawExchange {
  socket: Socket
  /** Resolves with everything the server sent once it has sent a complete JSON body or closed. */
  response: Promise<string>
}

export function rawRequest(port: number, head: string): RawExchange {
  const socket = connect(port, '127.0.0.1')
  const response = new Promise<string>((resolve, reject) => {
    let received = ''
    socket.on('data', (data) => {
      received += data.toString()
      const [headers, body] = received.split('\r\n\r\n')
      const length = /content-length: (\d+)/i.exec(headers ?? '')
      if (body !== undefined && length && Buffer.byteLength(body) >= Number(length[1])) {
        socket.destroy()
        resolve(received)
      }
    })
    socket.on('close', () => resolve(received))
    socket.on('error', reject)
  })
  socket.write(head)
  return { socket, response }
}
