// The billing service's in-memory model, seed data and request validation (specs/billing.json).
import { badRequest, isPlainObject } from './http-utils.js'

export const INVOICE_STATUSES = ['draft', 'open', 'paid', 'void'] as const
export const CURRENCIES = ['EUR', 'USD', 'GBP'] as const
export const PAYMENT_METHODS = ['card', 'bank', 'cash'] as const

export interface InvoiceLine {
  description: string
  quantity: number
  unit_price: number
}
export interface Payment {
  amount: number
  method: string
  reference?: string
  paid_at: string
}
export interface Receipt {
  id: string
  invoice_id: string
  filename: string
  content_type: string
  size: number
  description?: string
}

export interface Invoice {
  id: string
  customer_id: string
  status: (typeof INVOICE_STATUSES)[number]
  currency: string
  total: number
  amount_due: number
  due_date?: string
  lines: InvoiceLine[]
  payments: Payment[]
  metadata: Record<string, string>
  receipts: Receipt[]
  created_at: string
}

export interface Customer {
  id: string
  name: string
  currency: string
}

export interface BillingStore {
  customers: Map<string, Customer>
  invoices: Map<string, Invoice>
  counters: { invoice: number; receipt: number }
}

type Details = Array<{ field: string; problem: string }>

/** Money is kept in major units but rounded to cents, as a real ledger would. */
export function cents(amount: number): number {
  return Math.round(amount * 100) / 100
}

export function lineTotal(lines: InvoiceLine[]): number {
  return cents(lines.reduce((sum, l) => sum + l.quantity * l.unit_price, 0))
}

export function seedBillingStore(): BillingStore {
  const store: BillingStore = {
    customers: new Map(),
    invoices: new Map(),
    counters: { invoice: 2000, receipt: 0 },
  }
  for (const c of [
    { id: 'CUS-1', name: 'Ada Lovelace', currency: 'EUR' },
    { id: 'CUS-2', name: 'Grace Hopper', currency: 'USD' },
    { id: 'CUS-3', name: 'Linus Torvalds', currency: 'GBP' },
  ])
    store.customers.set(c.id, c)

  const add = (
    customer: string,
    currency: string,
    status: Invoice['status'],
    day: string,
    lines: InvoiceLine[],
    paid = 0,
  ): void => {
    const id = `INV-${++store.counters.invoice}`
    const total = lineTotal(lines)
    const payments: Payment[] =
      paid > 0
        ? [{ amount: paid, method: 'card', reference: `ch_${id}`, paid_at: `${day}T12:00:00.000Z` }]
        : []
    const amountDue = status === 'void' ? 0 : cents(total - paid)
    store.invoices.set(id, {
      id,
      customer_id: customer,
      status,
      currency,
      total,
      amount_due: amountDue,
      lines,
      payments,
      metadata: {},
      receipts: [],
      created_at: `${day}T09:00:00.000Z`,
    })
  }
  add('CUS-1', 'EUR', 'open', '2025-03-01', [{ description: 'Pro plan, March', quantity: 1, unit_price: 49 }])
  add(
    'CUS-1',
    'EUR',
    'paid',
    '2025-02-01',
    [{ description: 'Pro plan, February', quantity: 1, unit_price: 49 }],
    49,
  )
  add(
    'CUS-2',
    'USD',
    'open',
    '2025-03-05',
    [
      { description: 'Seats', quantity: 5, unit_price: 12 },
      { description: 'Support add-on', quantity: 1, unit_price: 30 },
    ],
    20,
  )
  add('CUS-2', 'USD', 'void', '2025-01-15', [
    { description: 'Duplicate of INV-2003', quantity: 1, unit_price: 90 },
  ])
  add('CUS-1', 'EUR', 'draft', '2025-03-10', [
    { description: 'Onboarding workshop', quantity: 2, unit_price: 250 },
  ])
  return store
}

const isDate = (v: unknown): v is string =>
  typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v) && !Number.isNaN(Date.parse(v))

export function checkDateParam(value: string | null, field: string): string | undefined {
  if (value === null) return undefined
  if (isDate(value)) return value
  throw badRequest(`${field} must be a date like 2025-03-01`, [
    { field, problem: 'must be a date (YYYY-MM-DD)' },
  ])
}

function checkLine(line: unknown, i: number, details: Details): void {
  const field = `lines[${i}]`
  if (!isPlainObject(line)) {
    details.push({ field, problem: 'must be an object' })
    return
  }
  if (typeof line.description !== 'string' || line.description === '')
    details.push({ field: `${field}.description`, problem: 'must be a non-empty string' })
  if (!Number.isInteger(line.quantity) || (line.quantity as number) < 1)
    details.push({ field: `${field}.quantity`, problem: 'must be an integer of at least 1' })
  if (typeof line.unit_price !== 'number' || line.unit_price < 0)
    details.push({ field: `${field}.unit_price`, problem: 'must be a number of at least 0' })
}

/** Throws a 400 listing every problem of a NewInvoice body. */
export function checkNewInvoice(body: Record<string, unknown>, customers: Map<string, Customer>): void {
  const details: Details = []
  if (typeof body.customer_id !== 'string') details.push({ field: 'customer_id', problem: 'is required' })
  else if (!customers.has(body.customer_id))
    details.push({ field: 'customer_id', problem: `no customer ${body.customer_id}` })
  if (!(CURRENCIES as readonly unknown[]).includes(body.currency))
    details.push({ field: 'currency', problem: `must be one of ${CURRENCIES.join(', ')}` })
  if (body.due_date !== undefined && !isDate(body.due_date))
    details.push({ field: 'due_date', problem: 'must be a date (YYYY-MM-DD)' })
  if (!Array.isArray(body.lines) || body.lines.length === 0)
    details.push({ field: 'lines', problem: 'must be a non-empty array' })
  else
    body.lines.forEach((line, i) => {
      checkLine(line, i, details)
    })
  if (
    body.metadata !== undefined &&
    !(isPlainObject(body.metadata) && Object.values(body.metadata).every((v) => typeof v === 'string'))
  ) {
    details.push({ field: 'metadata', problem: 'must be an object of string values' })
  }
  for (const field of Object.keys(body)) {
    if (!['customer_id', 'currency', 'due_date', 'lines', 'metadata'].includes(field))
      details.push({ field, problem: 'is not a known field' })
  }
  if (details.length > 0) throw badRequest('invalid invoice', details)
}

/** Form fields arrive as strings; this turns them into a payment or a 400. */
export function parsePayment(form: Record<string, unknown>, now: string): Payment {
  const details: Details = []
  const amount =
    typeof form.amount === 'string' && form.amount.trim() !== '' ? Number(form.amount) : Number.NaN
  if (!Number.isFinite(amount) || amount <= 0)
    details.push({ field: 'amount', problem: 'is required and must be a number greater than 0' })
  const method = form.method ?? 'card'
  if (!(PAYMENT_METHODS as readonly unknown[]).includes(method))
    details.push({ field: 'method', problem: `must be one of ${PAYMENT_METHODS.join(', ')}` })
  const reference = form.reference
  if (reference !== undefined && (typeof reference !== 'string' || reference.length > 64))
    details.push({ field: 'reference', problem: 'must be a string of at most 64 characters' })
  for (const field of Object.keys(form)) {
    if (!['amount', 'method', 'reference'].includes(field))
      details.push({ field, problem: 'is not a known field' })
  }
  if (details.length > 0) throw badRequest('invalid payment', details)
  return {
    amount: cents(amount),
    method: method as string,
    ...(typeof reference === 'string' ? { reference } : {}),
    paid_at: now,
  }
}
