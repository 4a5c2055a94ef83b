import { Elysia } from 'elysia'
import type { HealthResult } from '../../protocol/health.ts'

/** Liveness only: it says nothing about agents or printers. */
export const healthRoutes = () => new Elysia().get('/health', (): HealthResult => ({ ok: true, service: 'printhub' }))
