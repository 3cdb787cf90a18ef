//! Amounts with a unit, as the element's budget attributes give them
//! (`2`, `0.5s`, `500ms`, `64MB`).

/// A positive amount with an optional unit (`2`, `0.5s`, `500ms`, `64MB`),
/// in the smallest unit; a bare number is in `bare` units.
pub fn parse_amount(text: &str, units: &[(&str, f64)], bare: f64) -> Option<f64> {
    let t = text.trim().to_ascii_lowercase();
    let (number, scale) = units
        .iter()
        .find_map(|(unit, scale)| t.strip_suffix(unit).map(|n| (n.trim().to_string(), *scale)))
        .unwrap_or((t.clone(), bare));
    // Digits with at most one point, read without float parsing (which
    // would add kilobytes to the page).
    let (whole, fraction) = number.split_once('.').unwrap_or((&number, ""));
    let digits = |p: &str| p.bytes().all(|b| b.is_ascii_digit());
    if whole.is_empty() || !digits(whole) || !digits(fraction) || fraction.len() > 9 {
        return None;
    }
    let whole: u64 = whole.parse().ok()?;
    let fraction_value = fraction.parse::<u64>().unwrap_or(0) as f64 / 10f64.powi(fraction.len() as i32);
    let value = whole as f64 + fraction_value;
    (value > 0.0).then_some(value * scale)
}
