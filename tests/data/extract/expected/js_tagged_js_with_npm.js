const slugify = require("slugify");

const title = "Hello World! Ça va?";
console.log(slugify(title, { lower: true, strict: true }));
