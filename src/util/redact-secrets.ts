import { REDACTED } from './redact-url.js'

/**
 * `text` with each secret replaced by [redacted], in every form a peer may quote it back: as it is,
 * as it travelled (HTTP trims the spaces and tabs around a header value), and each as JSON
 * escapes it. Longer forms go first, so no part of a secret is left beside a redaction.
 */
export function redactSecrets(text: string, secrets: readonly string[], minLength = 1): string {
  const forms = new Set<string>()
  for (const secret of secrets)
    for (const form of [secret, secret.replace(/^[ \t]+|[ \t]+$/g, '')])
      if (form.length >= minLength) {
        forms.add(form)
        forms.add(JSON.stringify(form).slice(1, -1))
      }
  let out = text
  for (const form of [...forms].sort((a, b) => b.length - a.length)) out = out.replaceAll(form, REDACTED)
  return out
}
