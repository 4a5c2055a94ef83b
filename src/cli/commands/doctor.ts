import { diagnose } from '../../doctor/checks.ts'
import { readDiskWear } from '../../doctor/disk-wear.ts'
import { readMachineFacts } from '../../doctor/machine.ts'
import { resolveConfig } from '../../hub/config.ts'
import { savedSetting } from '../../doctor/saved-settings.ts'
import { type Command, DATA_HELP, DATA_OPTION, JSON_HELP, JSON_OPTION, noPositionals, printJson } from '../command.ts'

export const doctorCommand: Command = {
  name: 'doctor',
  summary: 'check this machine and hub, and explain what is wrong (exit 0 only when all is well)',
  usage: '[--data DIR] [--host H] [--port P] [--json]',
  help: [
    DATA_HELP,
    '--host H, --port P  the address the hub listens on (as for serve)',
    JSON_HELP,
    'Checks: platform and memory page size, clock, data directory (writable, free space), its disk (writes a',
    "day, the card's wear where it reports it), database integrity, the port, access to serial and USB devices,",
    'and each printer this machine drives.',
  ],
  options: { ...DATA_OPTION, host: { type: 'string' }, port: { type: 'string' }, ...JSON_OPTION },
  async run(args, io) {
    noPositionals(args)
    const config = resolveConfig(
      {
        host: args.values.host as string | undefined,
        port: args.values.port as string | undefined,
        data: args.values.data as string | undefined,
      },
      io.env,
    )
    // The hub's minimum free space: its environment's, else the setting saved in the data directory.
    const minFreeMb = config.pinned.includes('minFreeMb')
      ? config.minFreeMb
      : (savedSetting(config.dataDir, 'minFreeMb') ?? config.minFreeMb)
    const findings = await diagnose({
      dataDir: config.dataDir,
      host: config.host,
      port: config.port,
      serverId: config.serverId,
      now: Date.now(),
      machine: readMachineFacts(),
      disk: readDiskWear(config.dataDir),
      minFreeMb,
    })
    const healthy = findings.every((finding) => finding.verdict === 'ok')
    if (args.values.json) printJson(io, { healthy, findings })
    else {
      const width = Math.max(...findings.map((f) => f.check.length))
      for (const finding of findings)
        io.out(`${finding.verdict.toUpperCase().padEnd(4)}  ${finding.check.padEnd(width)}  ${finding.detail}`)
      io.out(healthy ? 'All is well.' : 'Something needs attention (see above).')
    }
    return healthy ? 0 : 1
  },
}
