// MARK: - The App Store's storefronts

/// One App Store storefront as Apple defines it: a country or region with the
/// currency App Store Connect prices it in, a usual locale and Apple's numeric id.
public struct AppStoreStorefront: Sendable, Hashable {
    /// ISO 3166-1 alpha-3 code, as StoreKit's `Storefront.countryCode` (Kosovo: `XKS`, as Apple writes it).
    public var countryCode: String
    /// ISO 4217 code of the currency App Store Connect prices this storefront in.
    public var currency: String
    /// The locale its prices and text are shown in here: the country's main language.
    public var locale: String
    /// Apple's numeric storefront id, as StoreKit's `Storefront.id` and the signed payloads' `storefrontId`.
    public var id: String
}

extension AppStoreStorefront {
    /// Every App Store storefront (175), by alpha-3 code.
    ///
    /// Sources: App Store Connect's territories (alpha-3 id and currency, as its
    /// `/v1/territories` lists them: 175, Bulgaria in euros since 2026); Apple's numeric
    /// storefront ids (`Storefront.id`; Apple's affiliate documentation's "Country Codes
    /// and Storefront IDs" appendix lists the older ones: USA 143441, GBR 143444,
    /// DEU 143443, FRA 143442, JPN 143462, …) taken from public tables of the ids Apple's
    /// web APIs accept, two independent ones agreeing on every id they share. Locales: the
    /// country's most likely language (Unicode CLDR's likely subtags), English where
    /// Foundation has no data for that language.
    public static let all: [AppStoreStorefront] = rows.map {
        AppStoreStorefront(countryCode: $0.0, currency: $0.1, locale: $0.2, id: String($0.3))
    }

    /// Alpha-3 code, currency, locale, storefront id; by code.
    private static let rows: [(String, String, String, Int)] = [
        ("AFG", "USD", "fa_AF", 143610), ("AGO", "USD", "pt_AO", 143564), ("AIA", "USD", "en_AI", 143538), ("ALB", "USD", "sq_AL", 143575),
        ("ARE", "AED", "ar_AE", 143481), ("ARG", "USD", "es_AR", 143505), ("ARM", "USD", "hy_AM", 143524), ("ATG", "USD", "en_AG", 143540),
        ("AUS", "AUD", "en_AU", 143460), ("AUT", "EUR", "de_AT", 143445), ("AZE", "USD", "az_AZ", 143568), ("BEL", "EUR", "nl_BE", 143446),
        ("BEN", "USD", "fr_BJ", 143576), ("BFA", "USD", "fr_BF", 143578), ("BGR", "EUR", "bg_BG", 143526), ("BHR", "USD", "ar_BH", 143559),
        ("BHS", "USD", "en_BS", 143539), ("BIH", "EUR", "bs_BA", 143612), ("BLR", "USD", "be_BY", 143565), ("BLZ", "USD", "en_BZ", 143555),
        ("BMU", "USD", "en_BM", 143542), ("BOL", "USD", "es_BO", 143556), ("BRA", "BRL", "pt_BR", 143503), ("BRB", "USD", "en_BB", 143541),
        ("BRN", "USD", "ms_BN", 143560), ("BTN", "USD", "dz_BT", 143577), ("BWA", "USD", "en_BW", 143525), ("CAN", "CAD", "en_CA", 143455),
        ("CHE", "CHF", "de_CH", 143459), ("CHL", "CLP", "es_CL", 143483), ("CHN", "CNY", "zh_CN", 143465), ("CIV", "USD", "fr_CI", 143527),
        ("CMR", "USD", "fr_CM", 143574), ("COD", "USD", "sw_CD", 143613), ("COG", "USD", "fr_CG", 143582), ("COL", "COP", "es_CO", 143501),
        ("CPV", "USD", "pt_CV", 143580), ("CRI", "USD", "es_CR", 143495), ("CYM", "USD", "en_KY", 143544), ("CYP", "EUR", "el_CY", 143557),
        ("CZE", "CZK", "cs_CZ", 143489), ("DEU", "EUR", "de_DE", 143443), ("DMA", "USD", "en_DM", 143545), ("DNK", "DKK", "da_DK", 143458),
        ("DOM", "USD", "es_DO", 143508), ("DZA", "USD", "ar_DZ", 143563), ("ECU", "USD", "es_EC", 143509), ("EGY", "EGP", "ar_EG", 143516),
        ("ESP", "EUR", "es_ES", 143454), ("EST", "EUR", "et_EE", 143518), ("FIN", "EUR", "fi_FI", 143447), ("FJI", "USD", "en_FJ", 143583),
        ("FRA", "EUR", "fr_FR", 143442), ("FSM", "USD", "en_FM", 143591), ("GAB", "USD", "fr_GA", 143614), ("GBR", "GBP", "en_GB", 143444),
        ("GEO", "USD", "ka_GE", 143615), ("GHA", "USD", "ak_GH", 143573), ("GMB", "USD", "en_GM", 143584), ("GNB", "USD", "pt_GW", 143585),
        ("GRC", "EUR", "el_GR", 143448), ("GRD", "USD", "en_GD", 143546), ("GTM", "USD", "es_GT", 143504), ("GUY", "USD", "en_GY", 143553),
        ("HKG", "HKD", "zh_HK", 143463), ("HND", "USD", "es_HN", 143510), ("HRV", "EUR", "hr_HR", 143494), ("HUN", "HUF", "hu_HU", 143482),
        ("IDN", "IDR", "id_ID", 143476), ("IND", "INR", "en_IN", 143467), ("IRL", "EUR", "en_IE", 143449), ("IRQ", "USD", "ar_IQ", 143617),
        ("ISL", "USD", "is_IS", 143558), ("ISR", "ILS", "he_IL", 143491), ("ITA", "EUR", "it_IT", 143450), ("JAM", "USD", "en_JM", 143511),
        ("JOR", "USD", "ar_JO", 143528), ("JPN", "JPY", "ja_JP", 143462), ("KAZ", "KZT", "ru_KZ", 143517), ("KEN", "USD", "sw_KE", 143529),
        ("KGZ", "USD", "ky_KG", 143586), ("KHM", "USD", "km_KH", 143579), ("KNA", "USD", "en_KN", 143548), ("KOR", "KRW", "ko_KR", 143466),
        ("KWT", "USD", "ar_KW", 143493), ("LAO", "USD", "lo_LA", 143587), ("LBN", "USD", "ar_LB", 143497), ("LBR", "USD", "en_LR", 143588),
        ("LBY", "USD", "ar_LY", 143567), ("LCA", "USD", "en_LC", 143549), ("LKA", "USD", "si_LK", 143486), ("LTU", "EUR", "lt_LT", 143520),
        ("LUX", "EUR", "fr_LU", 143451), ("LVA", "EUR", "lv_LV", 143519), ("MAC", "USD", "zh_MO", 143515), ("MAR", "USD", "ar_MA", 143620),
        ("MDA", "USD", "ro_MD", 143523), ("MDG", "USD", "mg_MG", 143531), ("MDV", "USD", "en_MV", 143488), ("MEX", "MXN", "es_MX", 143468),
        ("MKD", "USD", "mk_MK", 143530), ("MLI", "USD", "bm_ML", 143532), ("MLT", "EUR", "mt_MT", 143521), ("MMR", "USD", "my_MM", 143570),
        ("MNE", "EUR", "sr_ME", 143619), ("MNG", "USD", "mn_MN", 143592), ("MOZ", "USD", "pt_MZ", 143593), ("MRT", "USD", "ar_MR", 143590),
        ("MSR", "USD", "en_MS", 143547), ("MUS", "USD", "en_MU", 143533), ("MWI", "USD", "en_MW", 143589), ("MYS", "MYR", "ms_MY", 143473),
        ("NAM", "USD", "af_NA", 143594), ("NER", "USD", "fr_NE", 143534), ("NGA", "NGN", "en_NG", 143561), ("NIC", "USD", "es_NI", 143512),
        ("NLD", "EUR", "nl_NL", 143452), ("NOR", "NOK", "nb_NO", 143457), ("NPL", "USD", "ne_NP", 143484), ("NRU", "USD", "en_NR", 143606),
        ("NZL", "NZD", "en_NZ", 143461), ("OMN", "USD", "ar_OM", 143562), ("PAK", "PKR", "ur_PK", 143477), ("PAN", "USD", "es_PA", 143485),
        ("PER", "PEN", "es_PE", 143507), ("PHL", "PHP", "fil_PH", 143474), ("PLW", "USD", "en_PW", 143595), ("PNG", "USD", "en_PG", 143597),
        ("POL", "PLN", "pl_PL", 143478), ("PRT", "EUR", "pt_PT", 143453), ("PRY", "USD", "es_PY", 143513), ("QAT", "QAR", "ar_QA", 143498),
        ("ROU", "RON", "ro_RO", 143487), ("RUS", "RUB", "ru_RU", 143469), ("RWA", "USD", "rw_RW", 143621), ("SAU", "SAR", "ar_SA", 143479),
        ("SEN", "USD", "fr_SN", 143535), ("SGP", "SGD", "en_SG", 143464), ("SLB", "USD", "en_SB", 143601), ("SLE", "USD", "en_SL", 143600),
        ("SLV", "USD", "es_SV", 143506), ("SRB", "EUR", "sr_RS", 143500), ("STP", "USD", "pt_ST", 143598), ("SUR", "USD", "nl_SR", 143554),
        ("SVK", "EUR", "sk_SK", 143496), ("SVN", "EUR", "sl_SI", 143499), ("SWE", "SEK", "sv_SE", 143456), ("SWZ", "USD", "en_SZ", 143602),
        ("SYC", "USD", "fr_SC", 143599), ("TCA", "USD", "en_TC", 143552), ("TCD", "USD", "fr_TD", 143581), ("THA", "THB", "th_TH", 143475),
        ("TJK", "USD", "tg_TJ", 143603), ("TKM", "USD", "tk_TM", 143604), ("TON", "USD", "to_TO", 143608), ("TTO", "USD", "en_TT", 143551),
        ("TUN", "USD", "ar_TN", 143536), ("TUR", "TRY", "tr_TR", 143480), ("TWN", "TWD", "zh_TW", 143470), ("TZA", "TZS", "sw_TZ", 143572),
        ("UGA", "USD", "sw_UG", 143537), ("UKR", "USD", "uk_UA", 143492), ("URY", "USD", "es_UY", 143514), ("USA", "USD", "en_US", 143441),
        ("UZB", "USD", "uz_UZ", 143566), ("VCT", "USD", "en_VC", 143550), ("VEN", "USD", "es_VE", 143502), ("VGB", "USD", "en_VG", 143543),
        ("VNM", "VND", "vi_VN", 143471), ("VUT", "USD", "en_VU", 143609), ("XKS", "EUR", "sq_XK", 143624), ("YEM", "USD", "ar_YE", 143571),
        ("ZAF", "ZAR", "en_ZA", 143472), ("ZMB", "USD", "en_ZM", 143622), ("ZWE", "USD", "en_ZW", 143605),
    ]

    /// The storefronts by alpha-3 code.
    static let byCode = Dictionary(uniqueKeysWithValues: all.map { ($0.countryCode, $0) })

    /// The storefront with this alpha-3 code (`USA`, `PRT`), if the App Store has one.
    public static func named(_ countryCode: String) -> AppStoreStorefront? {
        byCode[countryCode]
    }
}
