import { createServer, type Server } from 'node:net'

/**
 * Servers on 127.0.0.1 that speak just enough of a real protocol to refuse a login, and put
 * the password they were sent into their refusal: the worst a server (or a proxy before it)
 * can do. A store whose errors hide the password passes only if it hides what comes back
 * from the wire too, not just what it builds itself.
 */
export interface EchoingServer {
  port: number
  close(): Promise<void>
}

function listen(server: Server): Promise<EchoingServer> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      const port = typeof address === 'object' && address ? address.port : 0
      resolve({ port, close: () => new Promise<void>((done) => server.close(() => done())) })
    }),
  )
}

/**
 * RESP: answers every command in a packet (ioredis sends `HELLO 3 AUTH user password` and
 * `CLIENT SETINFO` together) with an error that quotes the command's words.
 */
export function echoingRedis(): Promise<EchoingServer> {
  const server = createServer((socket) => {
    socket.on('data', (data) => {
      // Arrays of bulk strings: `*N`, then `$len` and the word, N times.
      const lines = data.toString('utf8').split('\r\n')
      const commands: string[][] = []
      for (let k = 0; k < lines.length; k++) {
        const line = lines[k] as string
        if (line.startsWith('*')) commands.push([])
        else if (line.startsWith('$')) commands.at(-1)?.push(lines[++k] ?? '')
      }
      for (const words of commands) socket.write(`-WRONGPASS refused: ${words.join(' ')}\r\n`)
    })
    socket.on('error', () => {})
  })
  return listen(server)
}

/**
 * PostgreSQL wire protocol: reads the startup message, asks for a cleartext password
 * (AuthenticationCleartextPassword), and answers the password message with a FATAL
 * ErrorResponse whose text quotes it.
 */
export function echoingPostgres(): Promise<EchoingServer> {
  const server = createServer((socket) => {
    let started = false
    socket.on('data', (data) => {
      if (!started) {
        started = true
        const ask = Buffer.alloc(9)
        ask.write('R', 0)
        ask.writeInt32BE(8, 1)
        ask.writeInt32BE(3, 5) // cleartext password
        socket.write(ask)
        return
      }
      // 'p', int32 length, the password and a NUL.
      const password = data.subarray(5, data.length - 1).toString('utf8')
      const field = (code: string, text: string) => Buffer.from(`${code}${text}\0`, 'utf8')
      const body = Buffer.concat([
        field('S', 'FATAL'),
        field('V', 'FATAL'),
        field('C', '28P01'),
        field('M', `password authentication failed: "${password}" is wrong`),
        Buffer.from([0]),
      ])
      const head = Buffer.alloc(5)
      head.write('E', 0)
      head.writeInt32BE(body.length + 4, 1)
      socket.end(Buffer.concat([head, body]))
    })
    socket.on('error', () => {})
  })
  return listen(server)
}
