//! Locales as `lc_time_names` and `lc_messages` name them: the list MySQL
//! and MariaDB know (MariaDB 10.11's `information_schema.LOCALES`, in id
//! order, so that `SET lc_time_names = 0` is en_US as `mysqlbinlog`
//! writes it).
//!
//! quire speaks en_US only: month and day names in DATE_FORMAT and
//! English messages. A known locale other than en_US is refused with 1235
//! (`sysvars`' `RefuseNonDefault`), an unknown name is 1649 as in MySQL.

use crate::sysvars::{VarError, VarValue};

/// Every locale name, in id order (`SET lc_time_names = <id>`).
const LOCALES: &[&str] = &[
    "en_US", "en_GB", "ja_JP", "sv_SE", "de_DE", "fr_FR", "ar_AE", "ar_BH", "ar_JO", "ar_SA", "ar_SY", "be_BY",
    "bg_BG", "ca_ES", "cs_CZ", "da_DK", "de_AT", "es_ES", "et_EE", "eu_ES", "fi_FI", "fo_FO", "gl_ES", "gu_IN",
    "he_IL", "hi_IN", "hr_HR", "hu_HU", "id_ID", "is_IS", "it_CH", "ko_KR", "lt_LT", "lv_LV", "mk_MK", "mn_MN",
    "ms_MY", "nb_NO", "nl_NL", "pl_PL", "pt_BR", "pt_PT", "ro_RO", "ru_RU", "ru_UA", "sk_SK", "sl_SI", "sq_AL",
    "sr_RS", "ta_IN", "te_IN", "th_TH", "tr_TR", "uk_UA", "ur_PK", "vi_VN", "zh_CN", "zh_TW", "ar_DZ", "ar_EG",
    "ar_IN", "ar_IQ", "ar_KW", "ar_LB", "ar_LY", "ar_MA", "ar_OM", "ar_QA", "ar_SD", "ar_TN", "ar_YE", "de_BE",
    "de_CH", "de_LU", "en_AU", "en_CA", "en_IN", "en_NZ", "en_PH", "en_ZA", "en_ZW", "es_AR", "es_BO", "es_CL",
    "es_CO", "es_CR", "es_DO", "es_EC", "es_GT", "es_HN", "es_MX", "es_NI", "es_PA", "es_PE", "es_PR", "es_PY",
    "es_SV", "es_US", "es_UY", "es_VE", "fr_BE", "fr_CA", "fr_CH", "fr_LU", "it_IT", "nl_BE", "no_NO", "sv_FI",
    "zh_HK", "el_GR", "rm_CH", "ka_GE",
];

fn is_locale_var(name: &str) -> bool {
    matches!(name, "lc_time_names" | "lc_messages")
}

/// A `SET` value of a locale variable in the spelling the table uses: a
/// known name in its canonical case, an id as its name. Other variables'
/// values come back as they are.
pub fn canonical(name: &str, value: &VarValue) -> VarValue {
    if !is_locale_var(name) {
        return value.clone();
    }
    let found = match value {
        VarValue::Str(s) => LOCALES.iter().find(|l| l.eq_ignore_ascii_case(s.trim())),
        v => v.as_u64().and_then(|i| usize::try_from(i).ok()).and_then(|i| LOCALES.get(i)),
    };
    match (found, value) {
        (Some(l), _) => VarValue::Str((*l).to_string()),
        (None, VarValue::Str(_)) => value.clone(),
        (None, v) => VarValue::Str(v.display()),
    }
}

/// 1649 `ER_UNKNOWN_LOCALE` for a locale variable's value no server knows.
pub fn unknown(name: &str, value: &VarValue) -> Option<VarError> {
    let text = value.as_str()?;
    (is_locale_var(name) && !LOCALES.iter().any(|l| l.eq_ignore_ascii_case(text))).then(|| VarError {
        code: 1649,
        state: "HY000",
        message: format!("Unknown locale: '{text}'"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_any_case_name_the_canonical_locale() {
        let s = |t: &str| VarValue::Str(t.to_string());
        assert_eq!(canonical("lc_time_names", &VarValue::Int(0)), s("en_US"));
        assert_eq!(canonical("lc_time_names", &VarValue::UInt(1)), s("en_GB"));
        assert_eq!(canonical("lc_messages", &s("DE_de")), s("de_DE"));
        assert_eq!(canonical("lc_time_names", &s("xx_YY")), s("xx_YY"));
        assert_eq!(canonical("time_zone", &s("de_DE")), s("de_DE"));
        assert_eq!(unknown("lc_time_names", &s("xx_YY")).map(|e| e.code), Some(1649));
        assert!(unknown("lc_time_names", &s("ka_GE")).is_none());
        assert_eq!(LOCALES.len(), 112);
    }
}
