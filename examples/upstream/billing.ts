// The Billing service of specs/billing.json (Swagger 2.0), served under its basePath /billing.

import {
  type BillingStore,
  cents,
  checkDateParam,
  checkNewInvoice,
  INVOICE_STATUSES,
  type Invoice,
  type InvoiceLine,
  lineTotal,
  parsePayment,
  type Receipt,
  seedBillingStore,
} from './billing-data.js'
import { parseForm, parseMultipart } from './body-parsers.js'
import {
  basicCredentials,
  HttpError,
  json,
  noContent,
  notFound,
  queryList,
  readBody,
  readJsonObject,
  requireMediaType,
  secretEquals,
  unauthorized,
} from './http-utils.js'
import { type Authenticator, createRouter, type Handler, type ServiceHandler } from './router.js'

export interface BillingOptions {
  /** HTTP basic credentials (securityDefinitions.basicAuth). */
  user: string
  password: string
  /** Value of the `api_key` query parameter (securityDefinitions.apiKeyQuery). */
  apiKey: string
}

export function createBillingService(opts: BillingOptions): ServiceHandler {
  const store = seedBillingStore()
  // The spec lists basicAuth and apiKeyQuery as alternatives: either one is enough.
  const auth: Authenticator = (req, url) => {
    const key = url.searchParams.get('api_key')
    if (key !== null && secretEquals(key, opts.apiKey)) return
    const basic = basicCredentials(req)
    if (
      basic !== undefined &&
      secretEquals(basic.user, opts.user) &&
      secretEquals(basic.password, opts.password)
    )
      return
    const given = key !== null || basic !== undefined
    throw unauthorized(
      given ? 'wrong credentials' : 'send HTTP basic credentials or an api_key query parameter',
      'Basic realm="billing"',
    )
  }
  const h = handlers(store)
  return createRouter('/billing', [
    { method: 'GET', path: '/invoices', auth, handle: h.list },
    { method: 'POST', path: '/invoices', auth, handle: h.create },
    { method: 'GET', path: '/invoices/:invoiceId', auth, handle: h.get },
    { method: 'DELETE', path: '/invoices/:invoiceId', auth, handle: h.void },
    { method: 'POST', path: '/invoices/:invoiceId/pay', auth, handle: h.pay },
    { method: 'POST', path: '/invoices/:invoiceId/receipt', auth, handle: h.receipt },
    { method: 'GET', path: '/customers/:customerId/balance', auth, handle: h.balance },
  ])
}

function conflict(message: string): HttpError {
  return new HttpError(409, 'conflict', message)
}

function handlers(store: BillingStore) {
  const find = (id: string | undefined): Invoice => {
    const invoice = id === undefined ? undefined : store.invoices.get(id)
    if (invoice === undefined) throw notFound(`invoice ${id ?? ''}`)
    return invoice
  }

  return {
    list: ({ url }) => {
      const q = url.searchParams
      const status = q.get('status')
      if (status !== null && !(INVOICE_STATUSES as readonly string[]).includes(status)) {
        throw new HttpError(400, 'bad_request', `status must be one of ${INVOICE_STATUSES.join(', ')}`)
      }
      const customer = q.get('customer_id')
      const ids = queryList(q, 'ids')
      const after = checkDateParam(q.get('created_after'), 'created_after')
      const data = [...store.invoices.values()]
        .filter(
          (inv) =>
            (status === null || inv.status === status) &&
            (customer === null || inv.customer_id === customer) &&
            (ids.length === 0 || ids.includes(inv.id)) &&
            (after === undefined || inv.created_at.slice(0, 10) >= after),
        )
        .sort((a, b) => b.created_at.localeCompare(a.created_at))
      return json(200, { data })
    },

    create: async ({ req }) => {
      const body = await readJsonObject(req)
      checkNewInvoice(body, store.customers)
      const lines = body.lines as InvoiceLine[]
      const total = lineTotal(lines)
      const id = `INV-${++store.counters.invoice}`
      const invoice: Invoice = {
        id,
        customer_id: body.customer_id as string,
        status: 'open',
        currency: body.currency as string,
        total,
        amount_due: total,
        lines,
        payments: [],
        metadata: (body.metadata as Record<string, string> | undefined) ?? {},
        receipts: [],
        created_at: new Date().toISOString(),
        ...(typeof body.due_date === 'string' ? { due_date: body.due_date } : {}),
      }
      store.invoices.set(id, invoice)
      return json(201, invoice, { location: `/billing/invoices/${id}` })
    },

    get: ({ params }) => json(200, find(params.invoiceId)),

    void: ({ params }) => {
      const invoice = find(params.invoiceId)
      if (invoice.status === 'paid')
        throw conflict(`invoice ${invoice.id} is paid and cannot be voided; refund it instead`)
      // Voiding twice is harmless: DELETE is idempotent.
      invoice.status = 'void'
      invoice.amount_due = 0
      return noContent()
    },

    pay: async ({ req, params }) => {
      const invoice = find(params.invoiceId)
      requireMediaType(req, 'application/x-www-form-urlencoded')
      const payment = parsePayment(
        parseForm((await readBody(req)).toString('utf8')),
        new Date().toISOString(),
      )
      if (invoice.status !== 'open')
        throw conflict(`invoice ${invoice.id} is ${invoice.status}; only open invoices can be paid`)
      if (payment.amount > invoice.amount_due) {
        throw new HttpError(
          400,
          'bad_request',
          `amount ${payment.amount} exceeds the amount due (${invoice.amount_due})`,
          [{ field: 'amount', problem: 'exceeds the amount due' }],
        )
      }
      invoice.payments.push(payment)
      invoice.amount_due = cents(invoice.amount_due - payment.amount)
      if (invoice.amount_due === 0) invoice.status = 'paid'
      return json(200, invoice)
    },

    receipt: async ({ req, params }) => {
      const invoice = find(params.invoiceId)
      requireMediaType(req, 'multipart/form-data')
      const { fields, files } = parseMultipart(await readBody(req), req.headers['content-type'] ?? '')
      const file = files.find((f) => f.field === 'file')
      if (file === undefined)
        throw new HttpError(400, 'bad_request', 'multipart field "file" (a file part) is required', [
          { field: 'file', problem: 'is required' },
        ])
      const receipt: Receipt = {
        id: `RCPT-${++store.counters.receipt}`,
        invoice_id: invoice.id,
        filename: file.filename,
        content_type: file.contentType,
        size: file.size,
        ...(fields.description === undefined ? {} : { description: fields.description }),
      }
      invoice.receipts.push(receipt)
      return json(201, receipt)
    },

    balance: ({ params }) => {
      const customer = store.customers.get(params.customerId ?? '')
      if (customer === undefined) throw notFound(`customer ${params.customerId ?? ''}`)
      const open = [...store.invoices.values()].filter(
        (inv) => inv.customer_id === customer.id && inv.status === 'open',
      )
      const balance = cents(open.reduce((sum, inv) => sum + inv.amount_due, 0))
      return json(200, {
        customer_id: customer.id,
        currency: customer.currency,
        balance,
        open_invoices: open.length,
      })
    },
  } satisfies Record<string, Handler>
}
