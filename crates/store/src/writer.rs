//! The group-commit writer: one task owns every write of the process.

use std::sync::Arc;

use tokio::sync::{mpsc, oneshot};

use crate::{Store, Write};

/// The most writes one transaction carries; more wait for the next batch.
const MAX_BATCH: usize = 2_048;

/// How many write requests may queue before callers wait (backpressure).
const QUEUE: usize = 65_536;

/// Why a write was not made durable.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WriterError {
    /// The store refused or failed the write.
    #[error("storage unavailable: {0}")]
    Unavailable(String),
    /// The writer has shut down.
    #[error("the writer has stopped")]
    Closed,
}

/// Told how long each batch took to commit.
pub type CommitObserver = Arc<dyn Fn(std::time::Duration) + Send + Sync>;

struct Request {
    writes: Vec<Write>,
    done: oneshot::Sender<Result<(), WriterError>>,
}

/// A handle to the writer task; cheap to clone.
#[derive(Clone)]
pub struct Writer {
    queue: mpsc::Sender<Request>,
}

impl Writer {
    /// Starts the writer task on the current Tokio runtime.
    ///
    /// Each batch is whatever has queued up while the previous batch was being committed, so
    /// batches grow with the load and a lone write is committed at once.
    pub fn start(store: Arc<dyn Store>) -> (Writer, tokio::task::JoinHandle<()>) {
        Writer::start_observed(store, Arc::new(|_| {}))
    }

    /// Starts the writer task as [`Writer::start`] does, telling `observe` how long each
    /// batch took to commit (for the server's metrics).
    pub fn start_observed(
        store: Arc<dyn Store>,
        observe: CommitObserver,
    ) -> (Writer, tokio::task::JoinHandle<()>) {
        let (queue, receiver) = mpsc::channel(QUEUE);
        let task = tokio::spawn(run(store, receiver, observe));
        (Writer { queue }, task)
    }

    /// Makes `writes` durable, atomically and after every write submitted before them.
    /// Returns once they are committed.
    pub async fn write(&self, writes: Vec<Write>) -> Result<(), WriterError> {
        let (done, committed) = oneshot::channel();
        self.queue
            .send(Request { writes, done })
            .await
            .map_err(|_| WriterError::Closed)?;
        committed.await.map_err(|_| WriterError::Closed)?
    }
}

async fn run(
    store: Arc<dyn Store>,
    mut receiver: mpsc::Receiver<Request>,
    observe: CommitObserver,
) {
    let mut batch: Vec<Request> = Vec::new();
    let mut writes: Vec<Write> = Vec::new();
    while let Some(first) = receiver.recv().await {
        batch.push(first);
        let mut count = batch[0].writes.len();
        while count < MAX_BATCH {
            match receiver.try_recv() {
                Ok(request) => {
                    count += request.writes.len();
                    batch.push(request);
                }
                Err(_) => break,
            }
        }
        writes.clear();
        writes.extend(batch.iter().flat_map(|r| r.writes.iter().cloned()));
        let started = std::time::Instant::now();
        let result = store.write_batch(&writes).await;
        observe(started.elapsed());
        tracing::debug!(
            requests = batch.len(),
            writes = writes.len(),
            micros = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX),
            "group commit"
        );
        match result {
            Ok(()) => {
                for request in batch.drain(..) {
                    let _ = request.done.send(Ok(()));
                }
            }
            Err(batch_error) => {
                // Retry each request on its own, so that one bad write cannot fail the
                // writes of other matches that happened to share its transaction.
                tracing::warn!(error = %batch_error, requests = batch.len(), "group commit failed; retrying requests one by one");
                for request in batch.drain(..) {
                    let result = store
                        .write_batch(&request.writes)
                        .await
                        .map_err(|e| WriterError::Unavailable(e.to_string()));
                    let _ = request.done.send(result);
                }
            }
        }
    }
}
