//! The list envelope every collection response uses.

use serde::Serialize;
use utoipa::ToSchema;

use crate::store::PageRequest;

/// `{"data": [...], "meta": {"page", "per_page", "total"}}`.
#[derive(Debug, Serialize, ToSchema)]
pub struct ListEnvelope<T> {
    /// The items of the page.
    pub data: Vec<T>,
    pub meta: Meta,
}

/// Where a page sits in the collection.
#[derive(Debug, Serialize, ToSchema)]
pub struct Meta {
    /// Current page number, from 1.
    pub page: u64,
    /// Items per page.
    pub per_page: u64,
    /// Items across all pages.
    pub total: u64,
}

impl<T> ListEnvelope<T> {
    /// One page of `data` out of `total` items.
    pub fn new(data: Vec<T>, page: PageRequest, total: u64) -> Self {
        ListEnvelope {
            data,
            meta: Meta {
                page: page.page,
                per_page: page.per_page,
                total,
            },
        }
    }
}
