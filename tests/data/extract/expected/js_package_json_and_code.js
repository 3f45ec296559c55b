import chalk from "chalk";

console.log(chalk.green("done"));
