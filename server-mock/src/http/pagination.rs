//! The list envelope every collection response uses.

use serde::Serialize;
use utoipa::ToSchema;

use crate::store::PageRequest;

/// The `page` and `per_page` query parameters of every list.
#[derive(utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct PageParams {
    /// Page number, from 1; default 1. A non-integer is a 400, out of bounds a 422.
    #[param(minimum = 1, maximum = 184_467_440_737_095_516_i64)]
    pub page: Option<u64>,
    /// Items per page, 1 to 100; default 25.
    #[param(minimum = 1, maximum = 100)]
    pub per_page: Option<u64>,
}

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
