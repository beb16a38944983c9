//! Every resource registers its routes through [`Routes`], which builds the axum router and keeps
//! the list of what it answers, so the server can say which routes it has (a test holds the
//! OpenAPI document against that list). Routes are generic over the router's state `S`: each
//! resource asks only that the parts it uses can be had from it (`Arc<dyn Store>: FromRef<S>`).

use axum::Router;
use axum::handler::Handler;
use axum::http::Method;
use axum::routing::{MethodRouter, delete, get, patch, post, put};

/// A router under construction, and the method and path of each route in it.
pub struct Routes<S> {
    paths: Vec<(&'static str, MethodRouter<S>)>,
    list: Vec<(Method, &'static str)>,
}

impl<S: Clone + Send + Sync + 'static> Default for Routes<S> {
    fn default() -> Self {
        Routes {
            paths: Vec::new(),
            list: Vec::new(),
        }
    }
}

impl<S: Clone + Send + Sync + 'static> Routes<S> {
    /// No routes yet.
    pub fn new() -> Self {
        Routes::default()
    }

    /// `GET path`.
    pub fn get<H: Handler<T, S>, T: 'static>(self, path: &'static str, handler: H) -> Self {
        self.add(Method::GET, path, get(handler))
    }

    /// `POST path`.
    pub fn post<H: Handler<T, S>, T: 'static>(self, path: &'static str, handler: H) -> Self {
        self.add(Method::POST, path, post(handler))
    }

    /// `PUT path`.
    pub fn put<H: Handler<T, S>, T: 'static>(self, path: &'static str, handler: H) -> Self {
        self.add(Method::PUT, path, put(handler))
    }

    /// `PATCH path`.
    pub fn patch<H: Handler<T, S>, T: 'static>(self, path: &'static str, handler: H) -> Self {
        self.add(Method::PATCH, path, patch(handler))
    }

    /// `DELETE path`.
    pub fn delete<H: Handler<T, S>, T: 'static>(self, path: &'static str, handler: H) -> Self {
        self.add(Method::DELETE, path, delete(handler))
    }

    fn add(mut self, method: Method, path: &'static str, route: MethodRouter<S>) -> Self {
        self.join(path, route);
        self.list.push((method, path));
        self
    }

    /// Adds `route` to what `path` already answers.
    fn join(&mut self, path: &'static str, route: MethodRouter<S>) {
        match self.paths.iter_mut().find(|(p, _)| *p == path) {
            Some((_, existing)) => *existing = std::mem::take(existing).merge(route),
            None => self.paths.push((path, route)),
        }
    }

    /// Both sets of routes.
    pub fn merge(mut self, other: Routes<S>) -> Self {
        for (path, route) in other.paths {
            self.join(path, route);
        }
        self.list.extend(other.list);
        self
    }

    /// The method and path (axum's syntax, `/v1/tokens/{id}`) of every route.
    pub fn list(&self) -> &[(Method, &'static str)] {
        &self.list
    }

    /// The axum router; a known path asked with another method gets `method_fallback`.
    pub fn into_router<H: Handler<T, S> + Clone, T: 'static>(
        self,
        method_fallback: H,
    ) -> Router<S> {
        self.paths
            .into_iter()
            .fold(Router::new(), |router, (path, route)| {
                router.route(path, route.fallback(method_fallback.clone()))
            })
    }
}
