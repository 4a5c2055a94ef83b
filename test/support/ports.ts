// The tests' free ports are the build's and the bench's (scripts/free-port.ts).
export { freePort } from '../../scripts/free-port.ts'
