// The page imports the schema validator the gateway serves from @cfworker/json-schema's ESM build.
declare module '*/vendor/json-schema/index.js' {
  export { Validator } from '@cfworker/json-schema'
}
