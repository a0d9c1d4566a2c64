// The layers below the engine, re-exported: front ends, tests and apps `import StoreEngine`
// and see the catalog's, signing's and ledger's public types as before the split.
@_exported import StoreCatalog
@_exported import StoreLedger
@_exported import StoreSigning
