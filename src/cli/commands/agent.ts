import { hostname } from 'node:os'
import { DEFAULT_AGENT_DATA_DIR, pairAgent, PairingError, runAgent } from '../../agent/remote.ts'
import { VERSION } from '../../domain/version.ts'
import { DataDirLockError } from '../../platform/data-dir-lock.ts'
import { normalJitPolicy } from '../../platform/jit.ts'
import { CliError, type Command, noPositionals } from '../command.ts'
import { LOG_HELP, LOG_OPTIONS, openLog } from '../log-options.ts'
import { agentDataDirOf } from './printers.ts'

export const agentCommand: Command = {
  name: 'agent',
  summary: "run this machine's printers for a hub: pair once with a code, then serve until stopped",
  usage: '[--server URL --code CODE [--name N]] [--data DIR] [--log-format text|json] [--log-level L]',
  help: [
    '--server URL      the hub, e.g. http://192.168.1.10:8080 (with --code: pair first)',
    '--code CODE       a pairing code from the hub (printhub pairing-codes create)',
    '--name N          how the hub lists this agent (default: the host name)',
    `--data DIR        the agent's data directory: its key, printers and job ` +
      `ledger (env PRINTHUB_AGENT_DATA_DIR, default ${DEFAULT_AGENT_DATA_DIR})`,
    ...LOG_HELP,
    'Add printers with printhub printers add --local --id ID --connection URI (they show up on the hub at once).',
  ],
  options: {
    server: { type: 'string' },
    code: { type: 'string' },
    name: { type: 'string' },
    data: { type: 'string' },
    ...LOG_OPTIONS,
  },
  async run(args, io) {
    noPositionals(args)
    const dataDir = agentDataDirOf(args, io)
    const server = args.values.server as string | undefined
    const code = args.values.code as string | undefined
    const logs = openLog(args, io)
    const log = logs.for('agent')
    if ((server === undefined) !== (code === undefined)) throw new CliError('pairing needs both --server and --code')
    try {
      if (server !== undefined && code !== undefined) {
        const pairing = await pairAgent({
          server,
          code,
          name: (args.values.name as string | undefined) ?? hostname().slice(0, 128),
          dataDir,
          version: VERSION,
        })
        log.info(
          `Paired with ${pairing.server} as agent ${pairing.agentId}.`,
          { agent: pairing.agentId, server: pairing.server },
          { always: true },
        )
      }
      const stopSignal = new Promise<string>((resolve) => {
        for (const name of ['SIGTERM', 'SIGINT'] as const) process.once(name, () => resolve(name))
      })
      const running = runAgent({ dataDir, version: VERSION, log })
      normalJitPolicy()
      log.info(
        `Agent ${running.pairing.agentId} serving the printers in ${dataDir} for ${running.pairing.server}.`,
        { agent: running.pairing.agentId, server: running.pairing.server, dir: dataDir },
        { always: true },
      )
      const signal = await Promise.race([stopSignal, running.agent.done.then(() => undefined)])
      if (signal === undefined) {
        await running.stop()
        throw new CliError(
          `${running.agent.refusal ?? 'the agent stopped'}; pair it again with a ` +
            `new code (printhub agent --server URL --code CODE)`,
        )
      }
      log.info(`${signal}: stopping`)
      await running.stop()
      logs.flush()
    } catch (error) {
      if (error instanceof PairingError || error instanceof DataDirLockError) throw new CliError(error.message)
      throw error
    }
  },
}
