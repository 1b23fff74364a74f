//! Random star-schema data with the key structure of Galley's ML benchmark (§8.1): lineitems
//! `L[i,s,p,o,c]`, each with one supplier, part and order and that order's customer, and
//! dimension tables `S`, `P`, `O`, `C` whose dense features sit in disjoint column blocks.

use std::collections::HashMap;

use rand::RngExt;
use rand_pcg::Pcg64;
use spores_tensor::CooTensor;

/// The sizes of one star schema.
#[derive(Clone, Copy, Debug)]
pub struct Star {
    /// Lineitems.
    pub rows: usize,
    /// Rows of the supplier, part, order and customer tables.
    pub tables: [usize; 4],
    /// Feature columns of each table, in that order.
    pub widths: [usize; 4],
    /// The first `broken` lineitems get a second tuple (the next supplier, same part and
    /// order), so `L` is no longer a function of `i`.
    pub broken: usize,
}

impl Star {
    pub fn features(&self) -> usize {
        self.widths.iter().sum()
    }

    /// `L`, `S`, `P`, `O` and `C`, drawn from `r`.
    pub fn tensors(&self, r: &mut Pcg64) -> HashMap<String, CooTensor> {
        let [ns, np, no, nc] = self.tables;
        let order_customer: Vec<u32> = (0..no).map(|_| r.random_range(0..nc as u32)).collect();
        let mut l = vec![];
        for i in 0..self.rows {
            let (s, p, o) = (
                r.random_range(0..ns as u32),
                r.random_range(0..np as u32),
                r.random_range(0..no as u32),
            );
            let c = order_customer[o as usize];
            l.push((vec![i as u32, s, p, o, c], 1.0));
            if i < self.broken && ns > 1 {
                l.push((vec![i as u32, (s + 1) % ns as u32, p, o, c], 1.0));
            }
        }
        let mut out = HashMap::new();
        out.insert(
            "L".to_string(),
            CooTensor::from_entries(vec![self.rows, ns, np, no, nc], l, 0.0).unwrap(),
        );
        let features = self.features();
        let mut offset = 0;
        for (k, name) in ["S", "P", "O", "C"].into_iter().enumerate() {
            let mut e = vec![];
            for row in 0..self.tables[k] {
                for col in offset..offset + self.widths[k] {
                    e.push((vec![row as u32, col as u32], r.random_range(-2.0..2.0)));
                }
            }
            out.insert(
                name.to_string(),
                CooTensor::from_entries(vec![self.tables[k], features], e, 0.0).unwrap(),
            );
            offset += self.widths[k];
        }
        out
    }
}

/// A dense tensor of values in [-1, 1).
pub fn dense_random(r: &mut Pcg64, dims: Vec<usize>) -> CooTensor {
    let cells: usize = dims.iter().product();
    let v: Vec<f64> = (0..cells).map(|_| r.random_range(-1.0..1.0)).collect();
    CooTensor::from_dense(dims, &v).unwrap()
}
