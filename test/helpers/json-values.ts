import fc from 'fast-check'

/**
 * Values JSON.stringify takes, nested: JSON values, what it leaves out or writes as null
 * (undefined, functions), lone surrogates, dates and other toJSON objects. The served documents'
 * writers (jsonBytes, jsonChunks) must give its bytes for every one.
 */
export const stringifiable = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.oneof(
      fc.jsonValue(),
      fc.constant(undefined),
      fc.constant(() => 1),
      fc.string({ unit: 'binary' }),
      fc.date(),
      fc.constant({ toJSON: () => ({ replaced: ['é', undefined] }) }),
    ),
    fc.array(tie('value'), { maxLength: 6 }),
    fc.dictionary(fc.string({ unit: 'binary' }), tie('value'), { maxKeys: 6 }),
  ),
})).value
