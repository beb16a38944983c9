//! Pages of a collection, and streams that walk every page.

use std::pin::Pin;

use futures::Stream;
use serde::{Deserialize, Serialize};

use crate::error::Result;

/// A stream of items that fetches further pages lazily; dropping it stops fetching.
pub type ItemStream<'a, T> = Pin<Box<dyn Stream<Item = Result<T>> + Send + 'a>>;

/// Most items a page can hold; what the `list_all` streams ask for.
pub const MAX_PER_PAGE: u32 = 100;

/// The `page` and `per_page` query parameters, for those that are set.
pub(crate) fn page_params(page: Option<u64>, per_page: Option<u32>) -> Vec<(&'static str, String)> {
    let mut query = Vec::new();
    if let Some(page) = page {
        query.push(("page", page.to_string()));
    }
    if let Some(per_page) = per_page {
        query.push(("per_page", per_page.to_string()));
    }
    query
}

/// One page of a collection: `{"data": [...], "meta": {...}}`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Page<T> {
    /// The items of this page.
    pub data: Vec<T>,
    /// Where this page sits.
    pub meta: PageMeta,
}

/// Position of a page in its collection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PageMeta {
    /// Page number, from 1.
    pub page: u64,
    /// Items per page.
    pub per_page: u64,
    /// Items across all pages.
    pub total: u64,
}

impl<T> Page<T> {
    /// Whether a later page holds more items.
    pub fn has_next(&self) -> bool {
        !self.data.is_empty() && self.meta.page.saturating_mul(self.meta.per_page) < self.meta.total
    }
}

/// Walks pages from 1 while `has_next`, yielding each item; `fetch(page)` gets one page.
pub(crate) fn walk<'a, T, F, Fut>(fetch: F) -> ItemStream<'a, T>
where
    T: Send + 'a,
    F: Fn(u64) -> Fut + Send + 'a,
    Fut: std::future::Future<Output = Result<Page<T>>> + Send + 'a,
{
    use futures::StreamExt;
    let pages = futures::stream::try_unfold(Some(1u64), move |next| {
        let fetched = next.map(&fetch);
        async move {
            let Some(fetched) = fetched else {
                return Ok(None);
            };
            let page = fetched.await?;
            let following = page.has_next().then(|| page.meta.page + 1);
            Ok(Some((page.data, following)))
        }
    });
    Box::pin(
        pages
            .map(|page: Result<Vec<T>>| match page {
                Ok(items) => futures::stream::iter(items.into_iter().map(Ok)).left_stream(),
                Err(err) => futures::stream::once(async { Err(err) }).right_stream(),
            })
            .flatten(),
    )
}
