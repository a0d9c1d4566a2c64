extension Storefront {
    /// Apple's numeric storefront id (`storefrontId` in signed payloads) of the
    /// storefronts Storefront knows by name; nil for others.
    ///
    /// A stopgap: the full storefront table, every App Store country with its
    /// currency and id, replaces this when it lands.
    public static func appStoreID(countryCode: String) -> String? {
        appStoreIDs[countryCode]
    }

    /// From Apple's App Store storefront list (e.g. the `storefrontId` of sandbox transactions).
    private static let appStoreIDs: [String: String] = [
        "USA": "143441", "FRA": "143442", "DEU": "143443", "GBR": "143444", "AUT": "143445",
        "IRL": "143449", "ITA": "143450", "NLD": "143452", "ESP": "143454", "CAN": "143455",
        "SWE": "143456", "NOR": "143457", "DNK": "143458", "CHE": "143459", "AUS": "143460",
        "NZL": "143461", "JPN": "143462", "HKG": "143463", "SGP": "143464", "CHN": "143465",
        "KOR": "143466", "IND": "143467", "MEX": "143468", "TWN": "143470", "ZAF": "143472",
        "POL": "143478", "TUR": "143480", "BRA": "143503",
    ]
}
