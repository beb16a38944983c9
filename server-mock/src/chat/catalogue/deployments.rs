//! A model's deployments: the `[[models.deployments]]` tables, each read as a model of its own
//! (the model's fields with the deployment's over them, so a deployment may set its provider,
//! URL, key, upstream name, prices, limits and breaker), and the model's named fallbacks.

use std::path::Path;
use std::sync::Arc;

use super::{Model, read_model, resolve};

/// Fields that are the model's as a whole, never one deployment's.
const MODEL_WIDE: [&str; 6] = [
    "id",
    "aliases",
    "fallbacks",
    "deployments",
    "quality",
    "max_output_tokens",
];

/// Most deployments one model may list (a request keeps those it tried as bits of a `u64`).
const MOST: usize = 64;

/// Longest deployment name (names label metrics).
const NAME_MAX: usize = 64;

/// Takes a model table's `deployments` out of it, checking each is a table that sets none of
/// the model-wide fields; a model that names no `provider` takes its first deployment's (for
/// what the model as a whole speaks).
pub(super) fn take(table: &mut toml::Table) -> Result<Vec<toml::Table>, String> {
    let Some(listed) = table.remove("deployments") else {
        return Ok(Vec::new());
    };
    let toml::Value::Array(listed) = listed else {
        return Err("deployments must be a list of tables ([[models.deployments]])".into());
    };
    if listed.is_empty() {
        return Err("deployments is empty: list at least one, or leave it out".into());
    }
    if listed.len() > MOST {
        return Err(format!(
            "{} deployments: a model may have at most {MOST}",
            listed.len()
        ));
    }
    let mut tables = Vec::with_capacity(listed.len());
    for (index, item) in listed.into_iter().enumerate() {
        let toml::Value::Table(deployment) = item else {
            return Err(format!("deployment number {} is not a table", index + 1));
        };
        if let Some(field) = MODEL_WIDE.iter().find(|f| deployment.contains_key(**f)) {
            return Err(format!(
                "deployment number {}: {field} is the model's, not a deployment's",
                index + 1
            ));
        }
        tables.push(deployment);
    }
    if !table.contains_key("provider")
        && let Some(provider) = tables[0].get("provider")
    {
        table.insert("provider".into(), provider.clone());
    }
    Ok(tables)
}

/// Checks that `model`'s fallbacks each name another model of the catalogue (`find` gives the
/// id a name stands for), once.
pub(super) fn check_fallbacks<'a>(
    model: &Model,
    find: impl Fn(&str) -> Option<&'a str>,
) -> Result<(), String> {
    let mut seen: Vec<&str> = Vec::new();
    for name in &model.fallbacks {
        let id = find(name).ok_or_else(|| format!("fallback {name:?} is not in the catalogue"))?;
        if id == model.id {
            return Err(format!("fallback {name:?} is the model itself"));
        }
        if seen.contains(&id) {
            return Err(format!("fallback {name:?} is listed twice"));
        }
        seen.push(id);
    }
    Ok(())
}

/// `model`'s deployments, resolved: each listed one read from `table` (the model's own) with
/// its fields over it, or, with none listed, the model itself (whose target is then filled in
/// too). Paths are relative to `dir`.
pub(super) fn expand(
    model: &mut Model,
    table: &toml::Table,
    listed: Vec<toml::Table>,
    dir: &Path,
) -> anyhow::Result<Vec<Arc<Model>>> {
    if listed.is_empty() {
        resolve::upstream(model, dir)?;
        return Ok(vec![Arc::new(model.clone())]);
    }
    let mut deployments: Vec<Arc<Model>> = Vec::with_capacity(listed.len());
    for (index, own) in listed.into_iter().enumerate() {
        let mut merged = table.clone();
        merged.remove("fallbacks");
        merged.extend(own);
        let name = match merged.get("name").and_then(toml::Value::as_str) {
            Some(name) => name.to_string(),
            None => match merged.get("provider").and_then(toml::Value::as_str) {
                Some(provider) => provider.to_string(),
                None => format!("deployment-{}", index + 1),
            },
        };
        let label = format!("deployment {name:?}");
        let mut deployment = read_model(merged, &label)?;
        deployment.provider = deployment.named.0.kind;
        let fits = !name.is_empty()
            && name.len() <= NAME_MAX
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b));
        if !fits {
            anyhow::bail!("{label}: a name is 1 to {NAME_MAX} letters, digits, -, _ or .");
        }
        if deployments
            .iter()
            .any(|d| d.deployment.as_deref() == Some(&name))
        {
            anyhow::bail!(
                "two deployments are named {name:?}: give each its own name (name = \"...\")"
            );
        }
        if deployment.provider != model.provider {
            anyhow::bail!(
                "{label} speaks another API than the model's first deployment (every deployment of a model is {:?})",
                model.named.0.name
            );
        }
        resolve::check(&deployment).map_err(|why| anyhow::anyhow!("{label}: {why}"))?;
        resolve::upstream(&mut deployment, dir).map_err(|err| anyhow::anyhow!("{label}: {err}"))?;
        if deployment.weight == Some(0) || deployment.rpm == Some(0) || deployment.tpm == Some(0) {
            anyhow::bail!("{label}: weight, rpm and tpm must be at least 1");
        }
        deployment.deployment = Some(name);
        deployment.slot = (model.slot.0, index);
        deployments.push(Arc::new(deployment));
    }
    let total = deployments.iter().map(|d| d.weight.unwrap_or(1)).sum();
    for deployment in &mut deployments {
        if let Some(deployment) = Arc::get_mut(deployment) {
            deployment.share = (deployment.weight.unwrap_or(1), total);
        }
    }
    Ok(deployments)
}
