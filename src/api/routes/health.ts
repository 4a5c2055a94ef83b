import { Elysia } from 'elysia'

/** Liveness only: it says nothing about agents or printers. */
export const healthRoutes = () => new Elysia().get('/health', () => ({ ok: true, service: 'printhub' }))
